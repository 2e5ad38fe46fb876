import { render } from 'preact';
import '../../assets/ui.css';
import '../../assets/review.css';
import { Popup } from '../../components/Popup.tsx';

render(<Popup />, document.getElementById('app')!);
