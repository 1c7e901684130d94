import { useState } from 'preact/hooks';
import { api, get, post } from '../api';
import { formatDateTime, formatInteger } from '../format';
import {
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
            <Field id="import-collection" label="Collection">
              <select
                id="import-collection"
                value={chosen}
                onChange={(e) => setTarget(e.currentTarget.value)}
              >
                {list.map((c) => (
                  <option key={c.name} value={c.name}>
                    {c.name}
                  </option>
                ))}
              </select>
            </Field>
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
      {toastView}
    </>
  );
}
