#!/usr/bin/env bash
# Regenerate patches/ from the checkout, so that src/ stays the one source
# of the module: the C patches as they are, then the last patch, which adds
# drivers/infiniband/rdma_tcp_port/ (Kconfig, Kbuild, src/, kunit/ of this
# checkout; not bench/, see scripts/bench-patch.sh) and its page,
# Documentation/infiniband/rdma_tcp_port.rst (docs/kernel/), and hooks both
# into the tree, then the cover letter with its subject and text kept and
# its shortlog and diffstat made again.
# Dates are fixed, so the same inputs give the same bytes.
# Usage: series.sh <project dir> <linux-source tarball> [stamp]
# With a stamp file, it runs only if its inputs differ from those the stamp
# records (their contents, and the tarball's size and time, as make would
# see it), and then records them: the stamp's time is the series' last
# change, for make.
set -euo pipefail

project=$(cd "$1" && pwd) tarball=$2 stamp=${3:-}
P=$project/patches

# Every file this script reads, by content, and the tarball, whose
# contents a new Debian upload changes along with its size and time.
inputs() {
	(
		cd "$project"
		shopt -s nullglob
		sha256sum scripts/series.sh Kconfig Kbuild patches/* src/Kbuild src/*.rs \
			src/sys/*.rs kunit/Kbuild kunit/*.[ch] docs/kernel/*.rst
	)
	stat -L -c 'tarball %s %Y' "$tarball"
}
if [[ -n $stamp && -f $stamp ]] && inputs | cmp -s - "$stamp"; then
	exit 0
fi
author='Seed 1dd1289b maintainers'
email='maintainers@users.noreply.a-seed-1dd1289b.example'
when='2026-12-04T12:00:00+0000'

mapfile -t all < <(grep -v '^#' "$P/series")
module=${all[-1]}
case $module in
*-RDMA-rdma_tcp_port-*) ;;
*) echo "series: the last patch ($module) is not the module's" >&2; exit 1 ;;
esac
cpatches=("${all[@]:0:${#all[@]}-1}")

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/tree"
cd "$work/tree"
mapfile -t files < <(cd "$P" && sed -n 's|^+++ b/||p' "${cpatches[@]}" | sort -u)
files+=(drivers/infiniband/Kconfig drivers/infiniband/Makefile MAINTAINERS
	Documentation/infiniband/index.rst)
tar -xf "$tarball" --strip-components=1 "${files[@]/#/linux-source-6.12/}"

git init -q
git config user.name "$author"
git config user.email "$email"
git config core.abbrev 7
GIT_AUTHOR_DATE=$when GIT_COMMITTER_DATE=$when git add -A
GIT_AUTHOR_DATE=$when GIT_COMMITTER_DATE=$when git commit -q -m base
base=$(git rev-parse HEAD)
for p in "${cpatches[@]}"; do
	git am -q --committer-date-is-author-date "$P/$p"
done

# The module: the checkout's files, where the tree builds them.
d=drivers/infiniband/rdma_tcp_port
mkdir -p $d/src/sys $d/kunit
cp "$project/Kconfig" "$project/Kbuild" $d/
cp "$project/src/Kbuild" "$project"/src/*.rs $d/src/
cp "$project"/src/sys/*.rs $d/src/sys/
cp "$project/kunit/Kbuild" "$project"/kunit/*.[ch] $d/kunit/
# Its page for the admin, next to the other InfiniBand pages.
cp "$project/docs/kernel/rdma_tcp_port.rst" Documentation/infiniband/
python3 - <<'PY'
def edit(path, old, new):
    s = open(path).read()
    assert s.count(old) == 1, (path, old)
    open(path, 'w').write(s.replace(old, new))

edit('drivers/infiniband/Kconfig',
     'source "drivers/infiniband/sw/siw/Kconfig"\nendif\n',
     'source "drivers/infiniband/sw/siw/Kconfig"\nendif\n\n'
     'source "drivers/infiniband/rdma_tcp_port/Kconfig"\n')
edit('drivers/infiniband/Makefile',
     'obj-$(CONFIG_INFINIBAND)\t\t+= sw/\n',
     'obj-$(CONFIG_INFINIBAND)\t\t+= sw/\n'
     'obj-$(CONFIG_RDMA_TCP_PORT)\t\t+= rdma_tcp_port/\n')
edit('Documentation/infiniband/index.rst',
     '   opa_vnic\n',
     '   opa_vnic\n   rdma_tcp_port\n')
edit('MAINTAINERS',
     '\nRDS - RELIABLE DATAGRAM SOCKETS\n',
     '\nRDMA_TCP_PORT - RDMA_PS_TCP PORTS IN THE HOST TCP PORT SPACE\n'
     'M:\tSeed 1dd1289b maintainers <maintainers@users.noreply.a-seed-1dd1289b.example>\n'
     'L:\tlinux-rdma@vger.kernel.org\n'
     'L:\trust-for-linux@vger.kernel.org\n'
     'S:\tMaintained\n'
     'F:\tDocumentation/infiniband/rdma_tcp_port.rst\n'
     'F:\tdrivers/infiniband/rdma_tcp_port/\n'
     '\nRDS - RELIABLE DATAGRAM SOCKETS\n')
PY
# Its message is the one the module patch has now.
git mailinfo "$work/msg" /dev/null < "$P/$module" > "$work/info"
{ sed -n 's/^Subject: //p' "$work/info"; echo; cat "$work/msg"; } > "$work/message"
git add -A
GIT_AUTHOR_DATE=$when GIT_COMMITTER_DATE=$when git commit -q -F "$work/message"

# A fixed signature: the bytes must not depend on the git that runs this.
git format-patch -q --cover-letter --signature=2.47.3 -o "$work/out" "$base..HEAD"
# The cover letter keeps its date, subject and text.
python3 - "$P/0000-cover-letter.patch" "$work/out/0000-cover-letter.patch" <<'PY'
import re, sys
old = open(sys.argv[1]).read()
new = open(sys.argv[2]).read()
head, body = old.split('\n\n', 1)
date = re.search(r'^Date: .*$', head, re.M).group(0)
subject = re.search(r'^Subject: \[PATCH [0-9/]+\] (.*(?:\n .*)*)$', head, re.M).group(1)
blurb = re.split(r'^Seed 1dd1289b maintainers \(\d+\):$', body, flags=re.M)[0]
new = re.sub(r'^Date: .*$', lambda _: date, new, count=1, flags=re.M)
new = new.replace('*** SUBJECT HERE ***', subject.replace('\n ', ' '))
new = new.replace('*** BLURB HERE ***\n\n', blurb)
open(sys.argv[2], 'w').write(new)
PY
rm -f "$P"/0*.patch
cp "$work"/out/*.patch "$P/"
(cd "$work/out" && ls 0*.patch | grep -v '^0000-') > "$P/series"
if [[ -n $stamp ]]; then
	mkdir -p "$(dirname "$stamp")"
	inputs > "$stamp"
fi
