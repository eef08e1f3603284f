# Headless Chromium screenshots compared pixel by pixel, for the browser checks
# (scripts/check-serve-browser.sh, scripts/check-proxy-browser.sh). Needs $work.

# The pages of python3.11-doc both checks open.
pages=(index.html library/os.html tutorial/index.html reference/datamodel.html library/functions.html)

# Chromium's own noise, in pixels of 1,433,600: nginx's os.html shot six times in a row
# differed from itself by 7 pixels (one box's antialiased edge) in 2 of the shots; the one real
# difference these checks found changed 570,459.
NOISE=${NOISE:-100}

# screenshot URL NAME [CHROMIUM-ARGS...]: $work/NAME.png, with a profile of its own, in a window
# of $WINDOW (WIDTH,HEIGHT; 1024,1400 unless set).
screenshot() {
  local url=$1 name=$2
  shift 2
  chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size="${WINDOW:-1024,1400}" \
    --disable-background-networking --disable-component-update --run-all-compositor-stages-before-draw \
    --virtual-time-budget=5000 --user-data-dir="$work/profile-$name" "$@" --screenshot="$work/$name.png" "$url" >/dev/null 2>&1
}

# differing_pixels A B: how many pixels of $work/A.png and $work/B.png differ
# ($work/diff-B.png shows where).
differing_pixels() {
  compare -metric AE "$work/$1.png" "$work/$2.png" "$work/diff-$2.png" 2>&1 >/dev/null || true
}

# within_noise PIXELS: whether that many differing pixels are no more than Chromium's noise.
within_noise() { [[ "$1" =~ ^[0-9]+$ ]] && [ "$1" -le "$NOISE" ]; }
