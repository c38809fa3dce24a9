/** A 1×1 PNG: its magic bytes say image/png whatever the name. */
export const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

export const HTML = Buffer.from('<!doctype html><html><body><script>alert(1)</script></body></html>');

/** The EICAR test file: every scanner detects it, it does nothing. */
export const EICAR = Buffer.from('X5O!P%@AP[4\\PZX54(P^)7CC)7}$EICAR-STANDARD-ANTIVIRUS-TEST-FILE!$H+H*');

/** A multipart body with text fields and files. */
export function multipart(fields: Record<string, string>, files: Array<{ field: string; name: string; content: Buffer; type?: string }>): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  for (const file of files) form.append(file.field, new Blob([new Uint8Array(file.content)], { type: file.type ?? 'application/octet-stream' }), file.name);
  return form;
}
