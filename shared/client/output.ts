/**
 * What a command prints: results on stdout (a table on a terminal, JSON with --json or when
 * piped into a machine that asked for it), progress and warnings on stderr so a pipe of
 * stdout stays clean.
 */
export interface Output {
  json: boolean;
  result: (human: string, machine: unknown) => void;
  progress: (message: string) => void;
}

export function createOutput(
  json: boolean,
  streams: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream } = process,
): Output {
  return {
    json,
    result(human, machine) {
      streams.stdout.write(json ? `${JSON.stringify(machine, null, 2)}\n` : `${human}\n`);
    },
    progress(message) {
      streams.stderr.write(`${message}\n`);
    },
  };
}

/** A plain-text table: columns padded to their widest cell. */
export function table(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(headers), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n');
}

/** `name  value` lines, names padded to the longest. */
export function pairs(rows: readonly (readonly [string, string])[]): string {
  const width = Math.max(...rows.map(([name]) => name.length));
  return rows.map(([name, value]) => `${name.padEnd(width)}  ${value}`).join('\n');
}
