#!/usr/bin/python3
"""The documentation's checks (make doc-check):

1. the module's page, as the patched tree carries it
   (Documentation/infiniband/rdma_tcp_port.rst, from docs/kernel/), parses
   as reStructuredText without a warning (docutils, Debian's
   python3-docutils: the page uses no Sphinx role or directive, which plain
   docutils would refuse) and is in its directory's toctree;
2. every `make <target>` that README.md and docs/*.md name is a target of
   the Makefile (or one of the kernel's, run in the tree), and every path
   of this repository they name exists (kernel-tree and guest paths are
   out of scope: only paths under this repository's own directories are
   looked at, and one that the patched tree has, scripts/kernel-doc, is
   the tree's).

Usage: doc-check.py <project dir> <patched tree>
"""
import glob
import os
import re
import sys

import docutils.core
import docutils.utils

project, tree = sys.argv[1], sys.argv[2]
errors = []

# 1. The page.
page = os.path.join(tree, 'Documentation/infiniband/rdma_tcp_port.rst')
try:
    with open(page) as f:
        docutils.core.publish_doctree(
            f.read(), source_path=page,
            settings_overrides={'halt_level': 2, 'report_level': 2,
                                'warning_stream': False})
except (OSError, docutils.utils.SystemMessage) as e:
    errors.append(f'{page}: {e}')
index = os.path.join(tree, 'Documentation/infiniband/index.rst')
try:
    with open(index) as f:
        toctree = re.search(r'^\.\. toctree::\n((?:(?:   .*)?\n)*)', f.read(), re.M)
    if not toctree or not re.search(r'^   rdma_tcp_port$', toctree.group(1), re.M):
        errors.append(f'{index}: rdma_tcp_port is not in the toctree')
except OSError as e:
    errors.append(f'{index}: {e}')

# 2. Targets and paths.
with open(os.path.join(project, 'Makefile')) as f:
    targets = set(re.findall(r'^([A-Za-z0-9_.-]+):', f.read(), re.M))
# The kernel's own targets that the documents run in the tree.
targets |= {'rustavailable', 'htmldocs', 'olddefconfig', 'menuconfig',
            'bindeb-pkg', 'modules_install'}
own = ('src', 'e2e', 'scripts', 'kunit', 'bench', 'patches', 'configs',
       'docs', 'crates', '.ci')
path_re = re.compile(r'(?<![\w./-])((?:%s)/[\w.*/-]*)' % '|'.join(map(re.escape, own)))
docs = ['README.md'] + sorted(os.path.relpath(p, project)
                              for p in glob.glob(os.path.join(project, 'docs/*.md')))
checked_targets, checked_paths = set(), set()
for doc in docs:
    with open(os.path.join(project, doc)) as f:
        text = f.read()
    for n, line in enumerate(text.splitlines(), 1):
        for t in re.findall(r'`make ([a-z][\w-]*)', line):
            checked_targets.add(t)
            if t not in targets:
                errors.append(f'{doc}:{n}: make {t}: no such target')
        for p in path_re.findall(line):
            p = p.rstrip('.')
            checked_paths.add(p)
            if not glob.glob(os.path.join(project, p)) and \
               not glob.glob(os.path.join(tree, p)):
                errors.append(f'{doc}:{n}: {p}: no such path')

for e in errors:
    print(f'doc-check: {e}', file=sys.stderr)
if errors:
    sys.exit(1)
print(f'doc-check: {os.path.relpath(page, tree)} parses and is in its toctree; '
      f'{len(docs)} documents name {len(checked_targets)} make targets and '
      f'{len(checked_paths)} paths, all present')
