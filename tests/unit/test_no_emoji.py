"""The app draws no emoji: a browser without an emoji font (a bare Chromium, many conference laptops
under Linux) shows each one as an empty box, so verdicts and notes use Streamlit's own badges instead."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: Pictographs, dingbats and symbols blocks, plus the variation selector that turns a character into emoji.
EMOJI = re.compile("[\U0001f000-\U0001faff\u2600-\u27bf\ufe0f]")
#: Files that hold emoji on purpose: the hostile-input corpus feeds them to parsers as data.
ALLOWED = {"interconnect/testing.py"}


def app_text_files() -> list[Path]:
    files = [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py"))]
    files += [path for path in sorted((ROOT / "interconnect").rglob("*")) if path.suffix in {".py", ".toml"}]
    return [path for path in files if path.relative_to(ROOT).as_posix() not in ALLOWED]


def test_no_emoji_in_what_the_app_shows():
    offenders = [f"{path.relative_to(ROOT)}:{number}: {line.strip()[:80]}"
                 for path in app_text_files()
                 for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
                 if EMOJI.search(line)]
    assert not offenders, "emoji draw as boxes without an emoji font:\n" + "\n".join(offenders)


def test_the_pattern_finds_emoji():
    assert EMOJI.search("🔴 wrong") and EMOJI.search("⚖️ note") and not EMOJI.search("→ µs × ≈ ±")
