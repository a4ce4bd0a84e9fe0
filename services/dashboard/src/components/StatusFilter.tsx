import { useState, type FormEvent, type ReactNode } from 'react';
import { Field, SelectField } from './Field';

// The filters above a long list (issue "Polish"): a labelled choice of status, and where the list's
// operation takes one, a search. Each goes to the API as a query parameter, never as a filter of the
// page already read; the page goes back to the list's first page when either changes.

export interface FilterOption<V extends string> {
  value: V;
  label: string;
}

/**
 * A long list's page and filters: changing the filter or the search goes back to the first page.
 * `filter` starts as `initial`; `search` is the name searched for ('' when none).
 */
export function useListFilters<F extends string>(initial: F) {
  const [offset, setOffset] = useState(0);
  const [filter, setFilter] = useState<F>(initial);
  const [search, setSearch] = useState('');
  return {
    offset,
    setOffset,
    filter,
    search,
    chooseFilter: (chosen: F) => {
      setFilter(chosen);
      setOffset(0);
    },
    /** The search box of StatusFilter: a search by name (`q`) unless said otherwise. */
    searchBox: (box: Partial<Search> = {}): Search => ({
      value: search,
      onSearch: (text) => {
        setSearch(text);
        setOffset(0);
      },
      ...box,
    }),
  };
}

interface Search {
  /** The search box's label (default "Find by name"). */
  label?: string;
  /** The field's name in the form (default `q`, as the lists' APIs call it). */
  name?: string;
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
  const searchLabel = search.label ?? 'Find by name';
  const field = search.name ?? 'q';
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    search.onSearch(String(new FormData(event.currentTarget).get(field) ?? '').trim());
  };
  return (
    <form onSubmit={submit} role="search" aria-label={searchName ?? searchLabel} className="filters">
      <Field type="search" label={searchLabel} name={field} defaultValue={search.value} hint={search.hint} />
      <button type="submit">{search.button ?? 'Find'}</button>
      {children}
      {select}
    </form>
  );
}
