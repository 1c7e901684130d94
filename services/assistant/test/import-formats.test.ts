import { AppError } from '@switchyard/shared';
import { parseImport } from '../src/knowledge/import-formats';
import { expect } from './chai';

function failure(run: () => unknown): AppError {
  try {
    run();
  } catch (error) {
    expect(error).to.be.instanceOf(AppError);
    return error as AppError;
  }
  throw new Error('expected a failure');
}

const STARTS = '2026-12-04T19:30:00+01:00';

describe('import files in any language', () => {
  it('reads a spreadsheet CSV: byte order mark, CRLF, ";" cells, decimal comma, its own headers mapped or kept', () => {
    const csv =
      '\uFEFFNr;Titel;Beginn;Preis;Öffnungszeiten;Straße;Hinweis\r\n' +
      `k1;Orgelkonzert im Dom;${STARTS};12,50;Di–So 10–18 Uhr;Domkloster 4;"Bitte; pünktlich"\r\n` +
      `k2;Chor am Abend;${STARTS};0;;Roncalliplatz 1;\r\n`;
    const { documents, metadataFields } = parseImport('csv', csv, 'events', {
      Nr: 'id',
      titel: 'title',
      BEGINN: 'startsAt',
      Preis: 'price',
    });
    expect(metadataFields).to.deep.equal(['Öffnungszeiten', 'Straße', 'Hinweis']);
    expect(documents).to.deep.equal([
      {
        id: 'k1',
        at: '/content/row/1',
        fields: {
          title: 'Orgelkonzert im Dom',
          startsAt: STARTS,
          price: 12.5,
          metadata: {
            Öffnungszeiten: 'Di–So 10–18 Uhr',
            Straße: 'Domkloster 4',
            Hinweis: 'Bitte; pünktlich',
          },
        },
      },
      {
        id: 'k2',
        at: '/content/row/2',
        fields: {
          title: 'Chor am Abend',
          startsAt: STARTS,
          price: 0,
          metadata: { Straße: 'Roncalliplatz 1' },
        },
      },
    ]);
  });

  it("takes the kind's fields under any case or spacing, metadata.X as metadata, and a header decomposed by macOS as the same name", () => {
    const csv = `ID,Title,Starts At,time_zone,metadata.Öffnungszeiten,Tags,${'Öffnungs'.normalize('NFD')}hinweis\nx,Gig,${STARTS},Europe/Berlin,9-17,jazz|live,ja\n`;
    const { documents, metadataFields } = parseImport('csv', csv, 'events');
    expect(metadataFields).to.deep.equal(['Öffnungshinweis']);
    expect(documents[0]?.fields).to.deep.equal({
      title: 'Gig',
      startsAt: STARTS,
      timeZone: 'Europe/Berlin',
      tags: ['jazz', 'live'],
      metadata: { Öffnungszeiten: '9-17', Öffnungshinweis: 'ja' },
    });
  });

  it('reads a tab-separated file and a comma-separated one whose tags hold ";"', () => {
    const tsv = parseImport('csv', `id\ttitle\tstartsAt\nt1\tHallo, Welt\t${STARTS}\n`, 'events');
    expect(tsv.documents[0]?.fields.title).to.equal('Hallo, Welt');
    const commas = parseImport(
      'csv',
      `id,title,startsAt,tags\nc1,Gig,${STARTS},jazz;live\n`,
      'events',
    );
    expect(commas.documents[0]?.fields.tags).to.deep.equal(['jazz', 'live']);
  });

  it('maps lesson columns of a course curriculum', () => {
    const csv =
      'Kurs,Titel,Modul,Lektion\npy,Python,Grundlagen,Variablen\npy,Python,Grundlagen,Schleifen\n';
    const { documents } = parseImport('csv', csv, 'courses', {
      Kurs: 'id',
      Titel: 'title',
      Modul: 'module',
      Lektion: 'lesson',
    });
    expect(documents).to.have.length(1);
    expect(documents[0]?.fields.modules).to.deep.equal([
      { title: 'Grundlagen', lessons: [{ title: 'Variablen' }, { title: 'Schleifen' }] },
    ]);
  });

  it('reads a JSON array (as json or as jsonl): other keys kept as metadata, lists joined, objects as JSON, nulls left out', () => {
    const items = [
      {
        id: 1,
        Titel: 'Lesung',
        startsAt: STARTS,
        Ort: { Straße: 'Hauptstraße 5', PLZ: '10115' },
        Sprachen: ['de', 'en'],
        Barrierefrei: true,
        Plätze: 40,
        Notiz: null,
        metadata: { Veranstalter: 'Stadtbibliothek' },
      },
    ];
    for (const format of ['json', 'jsonl']) {
      const { documents, metadataFields } = parseImport(
        format,
        `\uFEFF${JSON.stringify(items, null, 2)}`,
        'events',
        { Titel: 'title' },
      );
      expect(metadataFields).to.deep.equal(['Ort', 'Sprachen', 'Barrierefrei', 'Plätze', 'Notiz']);
      expect(documents).to.deep.equal([
        {
          id: '1',
          at: '/content/item/1',
          fields: {
            title: 'Lesung',
            startsAt: STARTS,
            metadata: {
              Ort: '{"Straße":"Hauptstraße 5","PLZ":"10115"}',
              Sprachen: 'de, en',
              Barrierefrei: true,
              Plätze: 40,
              Veranstalter: 'Stadtbibliothek',
            },
          },
        },
      ]);
    }
  });

  it('reads JSON Lines with a byte order mark and CRLF line ends', () => {
    const lines = `\uFEFF{"id":"a","title":"Straßenfest","startsAt":"${STARTS}","Straße":"Kastanienallee"}\r\n\r\n{"id":"b","title":"Ёлка","startsAt":"${STARTS}"}\r\n`;
    const { documents } = parseImport('jsonl', lines, 'events');
    expect(documents.map((d) => [d.id, d.at, d.fields.title])).to.deep.equal([
      ['a', '/content/line/1', 'Straßenfest'],
      ['b', '/content/line/3', 'Ёлка'],
    ]);
    expect(documents[0]?.fields.metadata).to.deep.equal({ Straße: 'Kastanienallee' });
  });

  it('names what is wrong: a map entry for no header or no field, a field given twice, no id, a JSON item that is no object', () => {
    const csv = `Nr,Titel,startsAt\n1,A,${STARTS}\n`;
    expect(
      failure(() => parseImport('csv', csv, 'events', { Nr: 'id', Titell: 'title' })).details,
    ).to.deep.equal([
      {
        field: '/fieldMap/Titell',
        reason: 'is not a header of the file (its headers: Nr, Titel, startsAt)',
      },
    ]);
    expect(
      failure(() => parseImport('csv', csv, 'events', { Nr: 'id', Titel: 'Überschrift' }))
        .details[0],
    ).to.deep.include({ field: '/fieldMap/Titel' });
    expect(
      failure(() => parseImport('csv', csv, 'events', { Nr: 'id', Titel: 'startsAt' })).details,
    ).to.deep.equal([
      { field: '/content/header/startsAt', reason: 'gives startsAt again (after Titel)' },
    ]);
    const noId = failure(() => parseImport('csv', csv, 'events'));
    expect(noId.details?.[0]?.reason).to.include('"Nr": "id"');
    const notObjects = failure(() => parseImport('json', `[{"id":"a"}, 3, "x"]`, 'events'));
    expect(notObjects.details?.map((d) => d.field)).to.deep.equal([
      '/content/item/2',
      '/content/item/3',
    ]);
    expect(failure(() => parseImport('json', '[{"id":', 'events')).details?.[0]?.field).to.equal(
      '/content',
    );
    expect(failure(() => parseImport('xml', '<a/>', 'events')).details?.[0]?.field).to.equal(
      '/format',
    );
  });
});
