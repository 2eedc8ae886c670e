import { mount } from 'svelte';
import Approve from './Approve.svelte';

mount(Approve, { target: document.getElementById('app'), props: { subject: 'alice' } });
