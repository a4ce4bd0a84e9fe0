/** Saves `text` as a file named `name` through the browser's download. */
export function saveFile(name: string, text: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  // The download has read the blob by the next task.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
