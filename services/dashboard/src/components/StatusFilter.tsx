import type { FormEvent, ReactNode } from 'react';
import { Field, SelectField } from './Field';

// The filters above a long list (issue "Polish"): a labelled choice of status, and where the list's
// operation takes one, a search. Each goes to the API as a query parameter, never as a filter of the
// page already read; the page goes back to the list's first page when either changes.

export interface FilterOption<V extends string> {
  value: V;
  label: string;
}

interface Search {
  /** The search box's label, e.g. "Request id". */
  label: string;
  /** The field's name in the form. */
  name: string;
  /** What is searched for now (the box starts with it). */
  value: string;
  /** Called with the trimmed text when the search is submitted (Enter or the button). */
  onSearch: (text: string) => void;
  hint?: ReactNode;
  /** The submit button's text. */
  button?: string;
}

interface StatusFilterProps<V extends string> {
  /** The select's label, e.g. "Show". */
  label: string;
  value: V;
  options: readonly FilterOption<V>[];
  onChange: (value: V) => void;
  /** The select's field name. */
  name?: string;
  /** A search box before the select; the filters then form a search landmark named `searchName`. */
  search?: Search;
  searchName?: string;
  /** Other filters of the same list (another select), between the search and the status. */
  children?: ReactNode;
}

/** A list's status filter, with an optional search: every control labelled, changes sent to the API. */
export function StatusFilter<V extends string>({
  label,
  value,
  options,
  onChange,
  name = 'status',
  search,
  searchName,
  children,
}: StatusFilterProps<V>) {
  const select = (
    <SelectField
      label={label}
      name={name}
      value={value}
      onChange={(event) => {
        const chosen = options.find((option) => option.value === event.target.value);
        if (chosen !== undefined) onChange(chosen.value);
      }}
    >
      {options.map((option) => (
        <option key={option.value} value={option.value}>
          {option.label}
        </option>
      ))}
    </SelectField>
  );
  if (search === undefined) {
    return (
      <div className="filters">
        {children}
        {select}
      </div>
    );
  }
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    search.onSearch(String(new FormData(event.currentTarget).get(search.name) ?? '').trim());
  };
  return (
    <form onSubmit={submit} role="search" aria-label={searchName ?? search.label} className="filters">
      <Field
        type="search"
        label={search.label}
        name={search.name}
        defaultValue={search.value}
        hint={search.hint}
      />
      <button type="submit">{search.button ?? 'Search'}</button>
      {children}
      {select}
    </form>
  );
}
