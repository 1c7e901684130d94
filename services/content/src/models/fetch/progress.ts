import { SingleBar } from 'cli-progress';
import type { DownloadProgress } from './fetch-models';

const MB = 1024 * 1024;

/**
 * Download progress on a terminal: a bar per archive with MB and speed (cli-progress), redrawn in
 * place; on anything else (a log, CI) a line at every quarter, so logs stay short.
 */
export function terminalProgress(stream: NodeJS.WriteStream = process.stderr): DownloadProgress {
  return {
    start(label, totalBytes) {
      if (stream.isTTY && totalBytes) {
        const bar = new SingleBar({
          stream,
          format: `  ${label.padEnd(48)} {bar} {percentage}% | {done}/{all} MB | {speed} MB/s`,
          hideCursor: true,
          barsize: 24,
        });
        const started = Date.now();
        const all = (totalBytes / MB).toFixed(0);
        bar.start(totalBytes, 0, { done: '0', all, speed: '0.0' });
        return {
          update(bytes) {
            const seconds = Math.max((Date.now() - started) / 1000, 0.001);
            bar.update(bytes, {
              done: (bytes / MB).toFixed(0),
              all,
              speed: (bytes / MB / seconds).toFixed(1),
            });
          },
          stop: () => bar.stop(),
        };
      }
      let shown = -1;
      stream.write(
        `  ${label}: downloading${totalBytes ? ` ${(totalBytes / MB).toFixed(0)} MB` : ''}\n`,
      );
      return {
        update(bytes) {
          if (!totalBytes) return;
          const quarter = Math.floor((bytes / totalBytes) * 4);
          if (quarter > shown && quarter < 4) {
            shown = quarter;
            if (quarter > 0) stream.write(`  ${label}: ${quarter * 25}%\n`);
          }
        },
        stop: () => undefined,
      };
    },
  };
}
