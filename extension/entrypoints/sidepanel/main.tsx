import { render } from 'preact';
import '../../assets/ui.css';
import '../../assets/review.css';
import { ReviewPanel } from '../../components/ReviewPanel.tsx';

render(<ReviewPanel />, document.getElementById('app')!);
