// A page of a list, as every store's list query takes it.

export interface Page {
  limit: number;
  offset: number;
}
