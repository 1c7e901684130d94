import { PATTERN_WORDS, SLUG_NAME } from '../../../src/schemas/common';
import { useState } from 'preact/hooks';
import { api, get, post } from '../api';
import { formatDateTime, formatInteger } from '../format';
import {
  Badge,
  Button,
  Card,
  ConfirmDialog,
  EmptyState,
  ErrorNotice,
  Field,
  FormNotice,
  Loading,
  Modal,
  PageHeader,
  DataTable,
  patternRule,
  useAction,
  useForm,
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

interface KnowledgeDocument {
  id: string;
  collection: string;
  fields: Record<string, unknown>;
  chunks: number;
  updatedAt: string;
}

const PAGE_SIZE = 20;

/** A document's title, or its first text field, for the list. */
function titleOf(document: KnowledgeDocument): string {
  const { title, name, question } = document.fields as Record<string, unknown>;
  const text = [title, name, question].find((v) => typeof v === 'string' && v.trim());
  return typeof text === 'string' ? text : '';
}

const documentsPath = (collection: string) =>
  `/api/v2/knowledge/collections/${encodeURIComponent(collection)}/documents`;

/** A collection's documents, a page at a time: each one's fields shown, or deleted after a confirmation. */
function DocumentsCard(props: {
  collections: Collection[];
  revision: number;
  changed: () => void;
  toast: (message: string) => void;
}) {
  const [target, setTarget] = useState('');
  // The first id of each page read so far: "Previous" goes back one.
  const [pages, setPages] = useState<string[]>(['']);
  const [opened, setOpened] = useState<KnowledgeDocument>();
  const [deleting, setDeleting] = useState<KnowledgeDocument>();
  const chosen = target || props.collections[0]?.name || '';
  const after = pages[pages.length - 1];
  const documents = useLoad(
    () =>
      chosen
        ? get<{ documents: KnowledgeDocument[]; nextAfter: string | null }>(
            `${documentsPath(chosen)}?${new URLSearchParams({ limit: String(PAGE_SIZE), ...(after ? { after } : {}) })}`,
          )
        : Promise.resolve({ documents: [], nextAfter: null }),
    [chosen, after, props.revision],
  );
  const list = documents.data?.documents ?? [];
  return (
    <Card
      title="Documents"
      id="knowledge-documents"
      subtitle="What a collection holds, by id: each document's fields as stored, and how many passages it was split into."
    >
      <div class="toolbar">
        <CollectionSelect
          id="documents-collection"
          collections={props.collections}
          value={chosen}
          onChange={(name) => {
            setTarget(name);
            setPages(['']);
          }}
        />
      </div>
      <ErrorNotice error={documents.error} />
      {!documents.data ? (
        documents.loading && <Loading />
      ) : list.length === 0 ? (
        <EmptyState title={chosen ? 'No documents in this collection' : 'No collections yet'}>
          {chosen && 'Import a file to add some.'}
        </EmptyState>
      ) : (
        <DataTable
          label={`Documents of ${chosen}`}
          testId="documents-table"
          columns={[
            'Id',
            'Title',
            { label: 'Passages', num: true },
            'Updated',
            { label: 'Actions', hidden: true },
          ]}
        >
          {list.map((d) => (
            <tr key={d.id} data-document-id={d.id}>
              <td>
                <code>{d.id}</code>
              </td>
              <td class="wide">{titleOf(d) || <span class="muted">untitled</span>}</td>
              <td class="num">{formatInteger(d.chunks)}</td>
              <td>{formatDateTime(d.updatedAt)}</td>
              <td class="actions">
                <Button
                  size="sm"
                  variant="ghost"
                  onClick={() => setOpened(d)}
                  aria-label={`Show document ${d.id}`}
                >
                  Show
                </Button>
                <Button
                  size="sm"
                  variant="ghost"
                  class="danger-text"
                  onClick={() => setDeleting(d)}
                  aria-label={`Delete document ${d.id}`}
                >
                  Delete
                </Button>
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      {(pages.length > 1 || documents.data?.nextAfter) && (
        <div class="toolbar-actions pager">
          <Button
            size="sm"
            disabled={pages.length === 1}
            onClick={() => setPages((p) => p.slice(0, -1))}
          >
            Previous
          </Button>
          <span class="muted small">Page {pages.length}</span>
          <Button
            size="sm"
            disabled={!documents.data?.nextAfter}
            onClick={() => setPages((p) => [...p, documents.data!.nextAfter!])}
          >
            Next
          </Button>
        </div>
      )}
      <Modal
        title={`Document ${opened?.id ?? ''}`}
        open={!!opened}
        onClose={() => setOpened(undefined)}
        wide
      >
        {opened && (
          <>
            <p class="muted small">
              In <code>{opened.collection}</code>, {formatInteger(opened.chunks)} passages, updated{' '}
              {formatDateTime(opened.updatedAt)}.
            </p>
            <pre class="code-block" tabIndex={0} aria-label="Fields" data-testid="document-fields">
              {JSON.stringify(opened.fields, null, 2)}
            </pre>
          </>
        )}
      </Modal>
      <ConfirmDialog
        title="Delete this document?"
        subject={deleting}
        confirmLabel="Delete document"
        onClose={() => setDeleting(undefined)}
        onConfirm={async (d) => {
          await api('DELETE', `${documentsPath(d.collection)}/${encodeURIComponent(d.id)}`);
          props.toast(`Deleted ${d.id} from ${d.collection}`);
          props.changed();
        }}
      >
        <p>
          <code>{deleting?.id}</code> leaves <code>{deleting?.collection}</code> at once: the
          assistants no longer find or cite it. This cannot be undone (import it again to restore
          it).
        </p>
      </ConfirmDialog>
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
  // Bumped when documents change (an import, a deletion): the documents list reads again.
  const [revision, setRevision] = useState(0);
  const creating = useForm(
    async () => {
      await post('/api/v2/knowledge/collections', { name: name.trim(), kind });
      toast(`Collection ${name.trim()} created`);
      setTarget(name.trim());
      setName('');
      collections.reload();
    },
    {
      fieldOf: (field) => ({ '/name': 'collection-name', '/kind': 'collection-kind' })[field],
      rules: {
        'collection-name': patternRule(SLUG_NAME.pattern, `Use ${SLUG_NAME[PATTERN_WORDS]}.`),
      },
    },
  );
  const importing = useForm(async (form) => {
    const input = form.elements.namedItem('file') as HTMLInputElement;
    const file = input.files![0]!;
    const result = await api<{ count: number }>(
      'POST',
      `/api/v2/knowledge/collections/${encodeURIComponent(chosen)}/import`,
      { raw: { text: await file.text(), contentType: mediaTypeOf(file.name) } },
    );
    toast(`Imported ${result.count} documents into ${chosen}`);
    setRevision((r) => r + 1);
    collections.reload();
  });
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
            <DataTable
              label="Knowledge collections"
              testId="collections-table"
              columns={['Name', 'Kind', { label: 'Documents', num: true }, 'Updated']}
            >
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
            </DataTable>
          )}
          <form class="inline-form" onSubmit={creating.onSubmit} noValidate>
            <Field
              id="collection-name"
              label="New collection"
              hint="Lowercase letters, digits, - and _."
              error={creating.errors['collection-name']}
            >
              <input
                id="collection-name"
                value={name}
                required
                onInput={(e) => setName(e.currentTarget.value)}
              />
            </Field>
            <Field id="collection-kind" label="Kind" error={creating.errors['collection-kind']}>
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
            <FormNotice form={creating} title="The collection was not created" />
          </form>
        </Card>
        <Card
          title="Import a file"
          subtitle="CSV with a header row (id and field names; tags as a|b) or JSON Lines. Every row is checked first: nothing is written when one is bad, and each bad row is named."
        >
          <form onSubmit={importing.onSubmit} noValidate>
            <CollectionSelect
              id="import-collection"
              collections={list}
              value={chosen}
              onChange={setTarget}
            />
            <Field
              id="import-file"
              label="File (.csv or .jsonl)"
              error={importing.errors['import-file']}
            >
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
            <FormNotice form={importing} title="The file was not imported" />
          </form>
        </Card>
      </div>
      <DocumentsCard
        collections={list}
        revision={revision}
        changed={() => {
          setRevision((r) => r + 1);
          collections.reload();
        }}
        toast={toast}
      />
      <SearchCard collections={list} />
      {toastView}
    </>
  );
}
