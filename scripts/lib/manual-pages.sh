# Sourced by scripts/install and scripts/package.
# fix_manual_pages DIR: two changes to the pages swift-argument-parser generates, so that man-db's
# and lintian's checks pass: a subcommand's page names itself in NAME as the page is called
# (mirror.cache.ls; lexgrog cannot parse `.Nm "mirror cache ls"`, so `whatis`/`apropos` would not
# find it) and keeps "mirror cache ls" in SYNOPSIS; an empty line (groff warns) becomes a paragraph
# break, .Pp. Fails when lexgrog still cannot read a page.
fix_manual_pages() {
  local page name
  for page in "$1"/mirror.*.1; do
    name=$(basename "$page" .1)
    sed -i -e '/^\.Sh NAME$/,/^\.Sh /{s/^\.Nm "\(.*\)"$/.Nm '"$name"'/;t}' \
      -e 's/^\.Nm$/.Nm "'"${name//./ }"'"/' "$page"
  done
  sed -i 's/^$/.Pp/' "$1"/*.1
  for page in "$1"/*.1; do
    lexgrog "$page" >/dev/null || { echo "lexgrog cannot parse $page" >&2; return 1; }
  done
}
