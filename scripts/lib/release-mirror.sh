# Sourced by scripts: builds `mirror` in release and sets $mirror to it. MIRROR_RELEASE_SCRATCH
# names the build folder (default .build), so that a benchmark can use a build of its own;
# MIRROR_BINARY names a binary to use as it is (another commit's build, to compare two).
if [ -n "${MIRROR_BINARY:-}" ]; then
  mirror=$MIRROR_BINARY
else
  scratch=${MIRROR_RELEASE_SCRATCH:-.build}
  swift build -c release --product mirror --scratch-path "$scratch" >/dev/null 2>&1
  mirror="$(swift build -c release --scratch-path "$scratch" --show-bin-path)/mirror"
fi
