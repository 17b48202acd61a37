"""The command line shared by the generators in Tools/codegen: write the generated files, or with
`--check` (CI) exit 1 naming every file that differs from what the generator writes."""
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # Tools/codegen/ -> repo root


def main(files, generator, usage):
    """`files`: repository path → text. `generator`: the script's path in the repository."""
    check = sys.argv[1:] == ['--check']
    if sys.argv[1:] not in ([], ['--check']):
        sys.exit(usage)
    stale = []
    for path, text in files.items():
        full = os.path.join(REPO, path)
        if check:
            try:
                with open(full, encoding='utf-8') as f:
                    if f.read() != text:
                        stale.append(path)
            except FileNotFoundError:
                stale.append(path)
        else:
            with open(full, 'w', encoding='utf-8') as f:
                f.write(text)
    if stale:
        sys.exit('%s --check: %s differ from the generator; run %s'
                 % (os.path.basename(generator), ', '.join(stale), generator))
