import { createRoot } from 'react-dom/client';
import { Approve } from './Approve.jsx';

createRoot(document.getElementById('root')).render(<Approve subject="alice" />);
