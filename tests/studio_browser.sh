#!/usr/bin/env bash
# kray studio in a real browser (tests/studio_browser.py): headless Chromium through Selenium
# loads every page, changes a parameter, waits for the job and checks the images and numbers
# shown against references. Screenshots: $KRAY_BUILD/studio-screenshots/. Skipped (77) with the
# reason when this build has no studio or chromium, chromium-driver, python3-selenium or NumPy
# are missing (scripts/deps.sh test installs them). CI runs as root without a display: the
# browser runs --headless --no-sandbox.
set -euo pipefail
. "$(dirname "$0")/cli_common.bash"
out=$(timeout 10 "$KRAY" studio --listen not-an-address 2>&1 || true)
if grep -q "no studio" <<<"$out"; then
    echo "skipped: this build of kray has no studio (libmicrohttpd-dev)"
    exit 77
fi
for p in /usr/bin/chromium /usr/bin/chromedriver; do
    [ -x "$p" ] || { echo "skipped: $p is missing (chromium, chromium-driver)"; exit 77; }
done
"$PY" -c 'import selenium, numpy' 2>/dev/null ||
    { echo "skipped: python3-selenium or python3-numpy is missing"; exit 77; }
exec "$PY" "$KRAY_SRC/tests/studio_browser.py" "$KRAY" "$KRAY_BUILD/studio-screenshots"
