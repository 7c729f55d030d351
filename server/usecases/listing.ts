// What a list request asks for and gets, as the store answers it.
export type { Page, PageRequest } from '../store/pagination.js';
