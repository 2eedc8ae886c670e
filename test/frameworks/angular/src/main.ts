import { bootstrapApplication } from '@angular/platform-browser';
import { Approve } from './approve';

bootstrapApplication(Approve).catch((error) => console.error(error));
