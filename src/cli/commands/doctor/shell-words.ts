// The words of a hook command, as the shell that runs it would split them: doctor checks what a hook runs.
/** Splits a POSIX shell command into words (single, double quotes and backslashes); undefined if unbalanced. */
export function shellWords(command: string): string[] | undefined {
  const words: string[] = [];
  let word = "";
  let inWord = false;
  let i = 0;
  while (i < command.length) {
    const ch = command[i]!;
    if (ch === "'") {
      const end = command.indexOf("'", i + 1);
      if (end < 0) return undefined;
      word += command.slice(i + 1, end);
      inWord = true;
      i = end + 1;
    } else if (ch === '"') {
      i += 1;
      for (;;) {
        if (i >= command.length) return undefined;
        const c = command[i]!;
        if (c === '"') break;
        if (c === "\\" && i + 1 < command.length && '"\\$`\n'.includes(command[i + 1]!)) {
          word += command[i + 1];
          i += 2;
          continue;
        }
        word += c;
        i += 1;
      }
      inWord = true;
      i += 1;
    } else if (ch === "\\") {
      if (i + 1 >= command.length) return undefined;
      word += command[i + 1];
      inWord = true;
      i += 2;
    } else if (ch === "#" && !inWord) {
      break;
    } else if (/\s/.test(ch)) {
      if (inWord) words.push(word);
      word = "";
      inWord = false;
      i += 1;
    } else {
      word += ch;
      inWord = true;
      i += 1;
    }
  }
  if (inWord) words.push(word);
  return words;
}
