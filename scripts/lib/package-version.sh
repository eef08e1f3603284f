# Sourced by scripts/package and scripts/check-package (from the repository's root): sets
#   version       the release's version: X.Y.Z from a tag vX.Y.Z on HEAD; X.Y.Z+N.gHASH when HEAD is
#                 N commits after the latest such tag (`git describe`); else the literal of
#                 `MirrorCommand.version` in the source (the one place a version is written)
#   source_version  that literal
#   commit        HEAD's short hash, with +dirty when the tree has changes git does not ignore;
#                 "unknown" outside a git checkout
#   commit_time   HEAD's commit time (seconds since 1970), the timestamp of every packaged file
#   arch          Debian's name of this machine's architecture (amd64, arm64)
source_version=$(sed -n 's/^ *public static let version = .*"\([0-9][0-9.]*[0-9]\)" *$/\1/p' \
  Sources/MirrorCLI/MirrorCommand.swift)
if [ -z "$source_version" ]; then
  echo "${0##*/}: no version literal in Sources/MirrorCLI/MirrorCommand.swift (public static let version = … \"X.Y.Z\")" >&2
  exit 1
fi
version=$source_version
commit=unknown
commit_time=${SOURCE_DATE_EPOCH:-0}
if git rev-parse --git-dir >/dev/null 2>&1; then
  commit=$(git rev-parse --short=7 HEAD)
  commit_time=$(git log -1 --format=%ct HEAD)
  if [ -n "$(git status --porcelain 2>/dev/null)" ]; then commit="$commit+dirty"; fi
  described=$(git describe --tags --match 'v[0-9]*' --abbrev=7 HEAD 2>/dev/null || true)
  if [[ $described =~ ^v([0-9]+\.[0-9]+\.[0-9]+)(-([0-9]+)-g([0-9a-f]+))?$ ]]; then
    version=${BASH_REMATCH[1]}
    if [ -n "${BASH_REMATCH[2]}" ]; then version="$version+${BASH_REMATCH[3]}.g${BASH_REMATCH[4]}"; fi
    if [ "${BASH_REMATCH[1]}" != "$source_version" ]; then
      echo "${0##*/}: note: the tag says ${BASH_REMATCH[1]}, the source $source_version; the tag wins" >&2
    fi
  fi
fi
arch=$(dpkg --print-architecture)
