import { useState } from 'preact/hooks';
import { api, get, post } from '../api';
import { formatDateTime, formatInteger } from '../format';
import {
  Badge,
  Button,
  Card,
  EmptyState,
  ErrorNotice,
  Field,
  Loading,
  PageHeader,
  useAction,
  useLoad,
  useToast,
} from '../ui';

interface Collection {
  name: string;
  kind: string;
  description: string;
  documentCount: number;
  updatedAt: string;
}

const KINDS = ['documents', 'articles', 'events', 'courses'];

interface SearchResult {
  rank: number;
  id: string;
  title: string;
  url: string | null;
  passage: string;
  score: number | null;
  lexicalScore: number | null;
  similarity: number | null;
}

interface SearchAnswer {
  collection: string;
  reading: {
    words: string[];
    dates: { from: string; to: string; phrase: string } | null;
    cities: string[];
    maxPrice: number | null;
    audience: string[];
    levels: string[];
    tags: string[];
  };
  results: SearchResult[];
}

/** The filters the API read in a query, as short labels ("city: Berlin"). */
function filtersOf(reading: SearchAnswer['reading']): string[] {
  const labels: string[] = [];
  if (reading.dates)
    labels.push(
      `${reading.dates.phrase}: ${formatDateTime(reading.dates.from)} – ${formatDateTime(reading.dates.to)}`,
    );
  for (const city of reading.cities) labels.push(`city: ${city}`);
  if (reading.maxPrice !== null) labels.push(`price ≤ ${reading.maxPrice}`);
  for (const a of reading.audience) labels.push(`audience: ${a}`);
  for (const l of reading.levels) labels.push(`level: ${l}`);
  for (const t of reading.tags) labels.push(`tag: ${t}`);
  return labels;
}

function CollectionSelect(props: {
  id: string;
  collections: Collection[];
  value: string;
  onChange: (name: string) => void;
}) {
  return (
    <Field id={props.id} label="Collection">
      <select
        id={props.id}
        value={props.value}
        onChange={(e) => props.onChange(e.currentTarget.value)}
      >
        {props.collections.map((c) => (
          <option key={c.name} value={c.name}>
            {c.name}
          </option>
        ))}
      </select>
    </Field>
  );
}

function SearchCard(props: { collections: Collection[] }) {
  const [target, setTarget] = useState('');
  const [query, setQuery] = useState('');
  const [answer, setAnswer] = useState<SearchAnswer>();
  const searching = useAction();
  const chosen = target || props.collections[0]?.name || '';
  const filters = answer ? filtersOf(answer.reading) : [];
  return (
    <Card
      title="Search"
      subtitle="What the assistants find for a question: ranked passages with their scores (BM25, and vector similarity when an embeddings model is configured, fused by rank)."
      id="knowledge-search"
    >
      <form
        class="search-form"
        role="search"
        onSubmit={(event) => {
          event.preventDefault();
          if (!chosen) return;
          void searching.act(async () => {
            setAnswer(
              await post<SearchAnswer>(
                `/api/v2/knowledge/collections/${encodeURIComponent(chosen)}/search`,
                { query: query.trim(), limit: 10 },
              ),
            );
          });
        }}
      >
        <CollectionSelect
          id="search-collection"
          collections={props.collections}
          value={chosen}
          onChange={setTarget}
        />
        <Field id="search-query" label="Query">
          <input
            id="search-query"
            type="search"
            value={query}
            required
            placeholder="jazz in Berlin this weekend"
            onInput={(e) => setQuery(e.currentTarget.value)}
          />
        </Field>
        <Button variant="primary" type="submit" busy={searching.busy} disabled={!chosen}>
          Search
        </Button>
      </form>
      <ErrorNotice error={searching.error} title="The search failed" />
      {answer && (
        <div class="search-answer" aria-live="polite">
          <p class="muted small">
            {answer.results.length === 0
              ? 'No passage matches'
              : `${answer.results.length} ${answer.results.length === 1 ? 'passage' : 'passages'}`}{' '}
            in <code>{answer.collection}</code>
            {answer.reading.words.length > 0 && (
              <> · matched words: {answer.reading.words.join(', ')}</>
            )}
            {filters.length > 0 && <> · filters: {filters.join('; ')}</>}
          </p>
          <ol class="search-results" data-testid="search-results">
            {answer.results.map((r) => (
              <li key={r.id} class="search-result">
                <div class="search-result-head">
                  <span class="search-rank" aria-label={`rank ${r.rank}`}>
                    {r.rank}
                  </span>
                  {r.url ? (
                    <a href={r.url} target="_blank" rel="noreferrer noopener">
                      {r.title}
                    </a>
                  ) : (
                    <strong>{r.title}</strong>
                  )}
                  <code class="muted small">{r.id}</code>
                </div>
                <p class="search-passage">{r.passage}</p>
                <div class="search-scores">
                  {r.score === null ? (
                    <Badge tone="gray">chosen by the filters</Badge>
                  ) : (
                    <Badge tone="blue">score {r.score.toFixed(4)}</Badge>
                  )}
                  {r.lexicalScore !== null && (
                    <Badge tone="gray">BM25 {r.lexicalScore.toFixed(2)}</Badge>
                  )}
                  {r.similarity !== null && (
                    <Badge tone="gray">similarity {r.similarity.toFixed(3)}</Badge>
                  )}
                </div>
              </li>
            ))}
          </ol>
        </div>
      )}
    </Card>
  );
}

/** The media type the import route reads a file as, from its name. */
function mediaTypeOf(fileName: string): string {
  return /\.csv$/i.test(fileName) ? 'text/csv' : 'application/x-ndjson';
}

export function KnowledgePage() {
  const collections = useLoad(() =>
    get<{ collections: Collection[] }>('/api/v2/knowledge/collections'),
  );
  const [toastView, toast] = useToast();
  const [name, setName] = useState('');
  const [kind, setKind] = useState('documents');
  const [target, setTarget] = useState('');
  const creating = useAction();
  const importing = useAction();
  const list = collections.data?.collections ?? [];
  const chosen = target || list[0]?.name || '';

  return (
    <>
      <PageHeader
        title="Knowledge"
        description="Collections the assistants search: their documents are split into passages and cited in replies."
      />
      <ErrorNotice error={collections.error} />
      <div class="grid-2">
        <Card title="Collections">
          {!collections.data ? (
            collections.loading && <Loading />
          ) : list.length === 0 ? (
            <EmptyState title="No collections yet" />
          ) : (
            <div class="table-wrap">
              <table class="table" data-testid="collections-table">
                <caption class="sr-only">Knowledge collections</caption>
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Kind</th>
                    <th scope="col" class="num">
                      Documents
                    </th>
                    <th scope="col">Updated</th>
                  </tr>
                </thead>
                <tbody>
                  {list.map((c) => (
                    <tr key={c.name}>
                      <td>
                        <code>{c.name}</code>
                      </td>
                      <td>{c.kind}</td>
                      <td class="num">{formatInteger(c.documentCount)}</td>
                      <td>{formatDateTime(c.updatedAt)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          <form
            class="inline-form"
            onSubmit={(event) => {
              event.preventDefault();
              void creating.act(async () => {
                await post('/api/v2/knowledge/collections', { name: name.trim(), kind });
                toast(`Collection ${name.trim()} created`);
                setTarget(name.trim());
                setName('');
                collections.reload();
              });
            }}
          >
            <Field
              id="collection-name"
              label="New collection"
              hint="Lowercase letters, digits, - and _."
            >
              <input
                id="collection-name"
                value={name}
                required
                onInput={(e) => setName(e.currentTarget.value)}
              />
            </Field>
            <Field id="collection-kind" label="Kind">
              <select
                id="collection-kind"
                value={kind}
                onChange={(e) => setKind(e.currentTarget.value)}
              >
                {KINDS.map((k) => (
                  <option key={k} value={k}>
                    {k}
                  </option>
                ))}
              </select>
            </Field>
            <Button type="submit" busy={creating.busy}>
              Create collection
            </Button>
            <ErrorNotice error={creating.error} />
          </form>
        </Card>
        <Card
          title="Import a file"
          subtitle="CSV with a header row (id and field names; tags as a|b) or JSON Lines. Every row is checked first: nothing is written when one is bad, and each bad row is named."
        >
          <form
            onSubmit={(event) => {
              event.preventDefault();
              const input = (event.currentTarget as HTMLFormElement).elements.namedItem(
                'file',
              ) as HTMLInputElement;
              const file = input.files?.[0];
              if (!file || !chosen) return;
              void importing.act(async () => {
                const result = await api<{ count: number }>(
                  'POST',
                  `/api/v2/knowledge/collections/${encodeURIComponent(chosen)}/import`,
                  { raw: { text: await file.text(), contentType: mediaTypeOf(file.name) } },
                );
                toast(`Imported ${result.count} documents into ${chosen}`);
                collections.reload();
              });
            }}
          >
            <CollectionSelect
              id="import-collection"
              collections={list}
              value={chosen}
              onChange={setTarget}
            />
            <Field id="import-file" label="File (.csv or .jsonl)">
              <input
                id="import-file"
                name="file"
                type="file"
                accept=".csv,.jsonl,.ndjson"
                required
              />
            </Field>
            <Button variant="primary" type="submit" busy={importing.busy} disabled={!chosen}>
              Import
            </Button>
          </form>
          <ErrorNotice error={importing.error} title="The file was not imported" />
        </Card>
      </div>
      <SearchCard collections={list} />
      {toastView}
    </>
  );
}
