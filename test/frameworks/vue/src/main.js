import { createApp } from 'vue';
import Approve from './Approve.vue';

createApp(Approve, { subject: 'alice' }).mount('#app');
