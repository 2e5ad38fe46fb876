import { render } from 'preact';
import '../../assets/ui.css';
import { Options } from '../../components/Options.tsx';

render(<Options />, document.getElementById('app')!);
