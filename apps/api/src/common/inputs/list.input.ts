import { ListQuery } from '../paging.js';

/** `?limit=&cursor=` of a keyset list with no filters of its own. */
export class ListInput extends ListQuery() {}
