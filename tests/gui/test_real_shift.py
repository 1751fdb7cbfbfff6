"""Issue 25, "done when": a whole shift at the croupier station of plain `drr`, at 1280x720 and at
1920x1080, on a real X server (Xvfb) with a window manager (openbox: title bars and frames, as on a
table PC): tests/gui/conftest.py's `desktop`. Everything is done as a croupier, a pit boss and two
players do it, through xdotool: keys to the croupier window (wagers typed on the typed line, Space for
the big button, M, Ctrl+D, Ctrl+Shift+V, Ctrl+Shift+D), clicks on dialogs, on the big button and on
the bonus screen beside the croupier window. The station reports what Qt shows (tests/gui/
shift_driver.py: its windows' frames, the dialog in front and its controls, the big button, the bonus
panels); the journal and the virtual wheel's command log (the capture of every line sent to the
wheel) say what the table did.

The shift, on one journal: a croupier signs in; rounds of typed wagers; a Lucky win entered as a
manual result (the wheel's number came, the dialog stayed open past the auto-confirmation); a dealer
change; a void signed off by a pit boss; a dispute that puts the round on hold; a restart during the
hold; the hold resolved by the pit boss's manual result on the Bonus Number; a two-player bonus game
played on the bonus screen; more rounds, 20 settled in all.

At every step the issue's problems are looked for: the confirmation does not run behind the Manual
result or Dispute dialog; Enter never does two things (the typed line's Enter does not close bets, the
Enter after a dialog does not settle); no window or dialog grows past the screen (Qt's frames, and
xwininfo's for the windows the window manager framed), the croupier window keeps the size it was
placed at and the bonus screen stands beside it; the croupier's messages stay on the croupier window
(the bonus screen's line stays empty); the bonus games end without stalling; the wheel is never sent a
start command during a hold or a bonus game (the command log against the journal), after the restart
too; and after the restart the hold, the bonus game and the rounds go on.

Screenshots are taken at each step; with DRR_SHIFT_SHOTS=DIR they are kept there to be looked at.
"""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from engine.store.db import open_store
from engine.store.users import add_user, authenticate
from tests.table.helpers import drr_env

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="X11 is Linux's")

ROOT = Path(__file__).parents[2]
SIZES = [(1280, 720), (1920, 1080)]
START_S = 120.0  # a loaded 2-core machine; what is tested is the shift, not the start-up time
STEP_S = 45.0  # the most one step may take (a spin, a dialog, a bonus round)
ROUNDS = int(os.environ.get("DRR_SHIFT_ROUNDS", "20"))  # settled in the whole shift
WHEEL_SPEED = "8"  # the virtual wheel eight times faster: a spin in about 3 s
AUTO_CONFIRM_S = 5.0  # the default (a croupier's station start may not change it: a pit boss's setting)
TITLE = "Diamond Rush Roulette · "
CROUPIER, RELIEF, PIT_BOSS = ("cara", "3333"), ("dave", "4444"), ("pat", "222222")
EVERY_NUMBER = " ".join(f"{n}/1" for n in range(37))  # a straight on each number: any result wins


@dataclass(frozen=True)
class Rect:
    x: int
    y: int
    w: int
    h: int

    def inside(self, other: Rect) -> bool:
        return (
            self.x >= other.x
            and self.y >= other.y
            and self.x + self.w <= other.x + other.w
            and self.y + self.h <= other.y + other.h
        )

    def overlaps(self, other: Rect) -> bool:
        return not (
            self.x + self.w <= other.x
            or other.x + other.w <= self.x
            or self.y + self.h <= other.y
            or other.y + other.h <= self.y
        )


def _users(db: Path) -> None:
    """The shift's people: an admin to add them, two croupiers and a pit boss."""
    with open_store(str(db), table="T1") as store:
        add_user(store, "ada", "admin", "111111", by=None)
        ada = authenticate(store, "ada", "111111")
        add_user(store, CROUPIER[0], "croupier", CROUPIER[1], by=ada)
        add_user(store, RELIEF[0], "croupier", RELIEF[1], by=ada)
        add_user(store, PIT_BOSS[0], "pitboss", PIT_BOSS[1], by=ada)


def _settings(tmp_path: Path) -> Path:
    path = tmp_path / "settings.toml"
    path.write_text(
        f'[table]\nid = "T1"\nbetting_seconds = 5\n\n'
        f'[database]\nurl = "{tmp_path / "table.sqlite"}"\n\n[paths]\nlog_dir = "{tmp_path / "logs"}"\n',
        encoding="utf-8",
    )
    return path


@dataclass
class Shift:
    display: str
    size: tuple[int, int]
    tmp_path: Path
    shots: Path
    problems: list[str] = field(default_factory=list)
    placed: Rect | None = None
    proc: subprocess.Popen[str] | None = None
    shot_no: int = 0

    @property
    def db(self) -> Path:
        return self.tmp_path / "table.sqlite"

    @property
    def state_file(self) -> Path:
        return self.tmp_path / "state.json"

    @property
    def screen(self) -> Rect:
        return Rect(0, 0, *self.size)

    # --- the journal, the wheel's command log ---------------------------------------------

    def journal(self, *types: str) -> list[tuple[int, str, str, dict[str, Any]]]:
        """(seq, time, type, payload) of the table's entries of these types (all when none)."""
        where = f"WHERE type IN ({','.join('?' * len(types))})" if types else ""
        with sqlite3.connect(f"file:{self.db}?mode=ro", uri=True) as conn:
            rows = conn.execute(f"SELECT seq, time, type, payload FROM journal {where} ORDER BY seq", types)
            return [(int(s), str(t), str(k), json.loads(p)) for s, t, k, p in rows]

    def count(self, kind: str) -> int:
        return len(self.journal(kind))

    def last_round_entry(self) -> str | None:
        rows = [r for r in self.journal() if r[2].startswith("round.")]
        return rows[-1][2] if rows else None

    def draw(self) -> dict[str, Any]:
        return dict(self.journal("round.bets_closed")[-1][3]["draw"])

    def start_commands(self) -> list[datetime]:
        """When the table sent the wheel its start command (`*u`), from every capture file."""
        found = []
        for path in sorted((self.tmp_path / "logs" / "captures").glob("wheel-*.log")):
            for line in path.read_text(encoding="latin-1").splitlines():
                stamp, _, rest = line.partition("\t")
                direction, _, text = rest.partition("\t")
                if direction == "TX" and text.startswith("*u"):
                    found.append(datetime.fromisoformat(stamp))
        return found

    # --- the X server -----------------------------------------------------------------------

    def x(self, *args: str) -> str:
        done = subprocess.run(
            ["xdotool", *args], env={**os.environ, "DISPLAY": self.display}, capture_output=True, text=True
        )
        return done.stdout

    def key(self, *keys: str) -> None:
        self.focus_croupier()
        for k in keys:
            self.x("key", k)
            time.sleep(0.15)

    def type(self, text: str) -> None:
        self.x("type", "--delay", "8", text)

    def click(self, at: list[int]) -> None:
        self.x("mousemove", str(at[0]), str(at[1]))
        self.x("click", "1")
        time.sleep(0.2)

    def focus_croupier(self) -> None:
        found = self.x("search", "--onlyvisible", "--name", TITLE + "Croupier").split()
        if found and self.state().get("dialog") is None:
            self.x("windowactivate", "--sync", found[0])

    def framed_windows(self) -> dict[str, Rect]:
        """The station's windows by title, each with the frame the window manager gave it."""
        found = {}
        env = {**os.environ, "DISPLAY": self.display}
        for wid in self.x("search", "--onlyvisible", "--name", TITLE).split():
            name = self.x("getwindowname", wid).strip()
            info = subprocess.run(["xwininfo", "-frame", "-id", wid], env=env, capture_output=True, text=True)
            values = dict(
                re.findall(r"^\s*(Absolute upper-left [XY]|Width|Height):\s+(-?\d+)", info.stdout, re.M)
            )
            if len(values) == 4 and name.startswith(TITLE):
                found[name[len(TITLE) :]] = Rect(
                    int(values["Absolute upper-left X"]),
                    int(values["Absolute upper-left Y"]),
                    int(values["Width"]),
                    int(values["Height"]),
                )
        return found

    def shot(self, what: str) -> None:
        self.shot_no += 1
        where = self.shots / f"shift-{self.size[0]}x{self.size[1]}-{self.shot_no:02d}-{what}.png"
        subprocess.run(
            ["scrot", "-o", str(where)], env={**os.environ, "DISPLAY": self.display}, check=True, timeout=30
        )

    # --- the station --------------------------------------------------------------------------

    def state(self) -> dict[str, Any]:
        try:
            return dict(json.loads(self.state_file.read_text(encoding="utf-8")))
        except (OSError, ValueError):
            return {}

    def note(self, problem: str) -> None:
        problem = f"{problem} ({self.step})"
        if problem not in self.problems:
            self.problems.append(problem)

    watching: bool = False  # from the sign-in on: while a station starts its windows are placed twice
    step: str = "the start"

    def look(self, st: dict[str, Any]) -> None:
        """The issue's screen problems in what Qt shows now (once the station is placed: before the
        window manager framed them Qt reports its windows 20 px above the screen)."""
        if not self.watching:
            return
        for name, w in st.get("windows", {}).items():
            r = Rect(*w["frame"])
            if not r.inside(self.screen):
                self.note(f"{name} at {r} is not inside the {self.size[0]}x{self.size[1]} screen")
            if w["min"][0] > self.size[0] or w["min"][1] > self.size[1]:
                self.note(f"{name} needs at least {w['min']} on the {self.size} screen")
        dialog = st.get("dialog")
        if dialog is not None and not Rect(*dialog["frame"]).inside(self.screen):
            self.note(f"the {dialog['title']} dialog at {dialog['frame']} is not inside the screen")
        windows = {k: Rect(*v["frame"]) for k, v in st.get("windows", {}).items()}
        croupier, bonus = windows.get("Croupier"), windows.get("Bonus game")
        if (
            croupier is not None
            and self.placed is not None
            and (croupier.w, croupier.h)
            != (
                self.placed.w,
                self.placed.h,
            )
        ):
            self.note(f"the croupier window changed from {self.placed} to {croupier}")
        if croupier is not None and bonus is not None and croupier.overlaps(bonus):
            self.note(f"the bonus screen {bonus} lies over the croupier window {croupier}")
        # The players' screen shows no croupier's message (its line is the players' own refusals).
        if st.get("bonus") is not None and st["bonus"]["reason"]:
            self.note(f"the bonus screen shows {st['bonus']['reason']!r}")

    framed_placed: Rect | None = None  # the croupier window as xwininfo saw it first

    def look_framed(self) -> None:
        """The windows as the X server has them (xwininfo): inside the screen, the croupier's the size
        it was first placed at."""
        for name, r in self.framed_windows().items():
            if not r.inside(self.screen):
                self.note(f"{name} framed at {r} is not inside the screen")
            if name == "Croupier":
                self.framed_placed = self.framed_placed or r
                if (r.w, r.h) != (self.framed_placed.w, self.framed_placed.h):
                    self.note(f"the framed croupier window changed from {self.framed_placed} to {r}")

    def wait(
        self, what: str, done: Callable[[dict[str, Any]], bool], seconds: float = STEP_S
    ) -> dict[str, Any]:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            assert self.proc is not None and self.proc.poll() is None, f"the station stopped while {what}"
            st = self.state()
            if st:
                self.look(st)
                if done(st):
                    return st
            time.sleep(0.2)
        self.shot(f"stuck-{what.replace(' ', '-')}")
        pytest.fail(f"{what}: not within {seconds:.0f} s; the station shows {self.state()}")

    @contextmanager
    def station(self, env: dict[str, str], label: str) -> Iterator[None]:
        """The station started (`drr`), yielding while it runs; then stopped by SIGTERM, cleanly."""
        self.state_file.unlink(missing_ok=True)
        self.watching = False
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.gui.shift_driver", str(self.state_file), "--"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            cwd=ROOT,
        )
        try:
            yield
        finally:
            self.shot(f"{label}-end")
            if self.proc.poll() is None:
                self.proc.send_signal(signal.SIGTERM)
            _, err = self.proc.communicate(timeout=60)
            assert "Traceback" not in err, err[-3000:]
            assert self.proc.returncode == 128 + signal.SIGTERM, err[-2000:]

    # --- what the people do --------------------------------------------------------------------

    def dialog(self, what: str, match: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        """The dialog in front once the window manager has placed it (its frame the same twice: the
        first reports after show() still have it where Qt put it, not where it ended up)."""
        last: list[int] = []
        while True:
            st = self.wait(what, lambda s: s.get("dialog") is not None and match(s["dialog"]))
            if st["dialog"]["frame"] == last:
                return dict(st["dialog"])
            last = st["dialog"]["frame"]
            time.sleep(0.4)

    def control(self, kind: str, text: str) -> dict[str, Any]:
        """The front dialog's control of `kind` whose text or placeholder starts with `text` (is
        empty, for "")."""
        dialog = self.dialog(f"a dialog with {kind} {text!r}", lambda d: True)
        found = [
            c
            for c in dialog["controls"]
            if c["kind"] == kind and (c["text"].startswith(text) if text else not c["text"])
        ]
        assert found, f"no {kind} {text!r} in the {dialog['title']} dialog: {dialog['controls']}"
        return dict(found[0])

    def fill(self, kind: str, text: str, value: str) -> None:
        """Click the front dialog's control (`control`), type `value` in place of what it held."""
        self.click(self.control(kind, text)["at"])
        self.x("key", "ctrl+a")
        self.type(value)

    def press(self, kind: str, text: str) -> None:
        control = self.control(kind, text)
        assert control["enabled"], f"{text} is greyed"
        self.click(control["at"])

    def sign_in(self, who: tuple[str, str], *, first: bool) -> None:
        """The log-in dialog (at the start, or the dealer change's): name, PIN, Enter."""
        self.wait(
            "the sign-in dialog", lambda s: (s.get("dialog") or {}).get("class") == "LoginDialog", START_S
        )
        if first:
            self.shot("login")
        self.fill("QLineEdit", "user", who[0])
        self.fill("QLineEdit", "PIN", who[1])
        self.x("key", "Return")
        self.wait("signed in", lambda s: s.get("dialog") is None and s.get("croupier") is not None, START_S)
        if not self.watching:
            time.sleep(1.5)  # the placement's second pass, after the window manager framed the windows
            self.placed = self.placed or Rect(*self.state()["windows"]["Croupier"]["frame"])
            self.watching = True
            self.look(self.state())
            self.look_framed()

    def big_button(self, label: str) -> dict[str, Any]:
        return self.wait(
            f"the big button says {label!r}",
            lambda s: (
                s.get("dialog") is None
                and (s.get("croupier") or {}).get("action", "").startswith(label)
                and s["croupier"]["action_enabled"]
            ),
        )

    def space_until(self, label: str, entry: str) -> None:
        """The big button shows `label`: its key (Space), and the journal gets `entry`."""
        before = self.count(entry)
        self.big_button(label)
        assert self.state()["croupier"]["focus"] != "WagerEntry", "the typed line holds the keys"
        self.key("space")
        self.wait(f"{entry} after {label}", lambda s: self.count(entry) > before)

    def wagers(self, seat: int, line: str) -> None:
        """The croupier's wagers for a seat: its key, W, the line, Enter (the line hands the keys back)."""
        placed, closed = self.count("round.wager_placed"), self.count("round.bets_closed")
        self.key(str(seat), "w")
        self.type(line)
        self.x("key", "Return")
        wanted = placed + len(line.split())
        self.wait("the typed wagers placed", lambda s: self.count("round.wager_placed") >= wanted)
        self.wait("the typed line hands the keys back", lambda s: s["croupier"]["focus"] != "WagerEntry", 5)
        # Enter on the typed line placed the wagers and did nothing else (it is the big button's key too).
        assert self.count("round.wager_placed") == wanted and self.count("round.bets_closed") == closed

    def open_round(self) -> None:
        """Bets open for a new round: Space on "Next round" (a settled or voided round), then on
        "Open bets"."""
        opened = self.count("round.opened")
        if self.last_round_entry() == "round.opened":
            return
        while self.count("round.opened") == opened:
            st = self.wait(
                "the big button to open a round",
                lambda s: (
                    s.get("dialog") is None
                    and (s.get("croupier") or {}).get("action", "").startswith(("Next round", "Open bets"))
                    and s["croupier"]["action_enabled"]
                ),
            )
            label = st["croupier"]["action"]
            self.key("space")
            self.wait(
                f"Space on {label}",
                lambda s, label=label: (
                    s["croupier"]["action"] != label or self.count("round.opened") > opened
                ),
            )

    def plain_round(self) -> None:
        self.step = "plain round"
        self.open_round()
        self.wagers(1, "17/5 red/10")
        self.space_until("No more bets", "round.bets_closed")
        results = self.count("round.result")
        # The wheel's number, confirmed with Space (or by the auto-confirmation, if it was quicker).
        self.wait(
            "the wheel's number",
            lambda s: s["croupier"]["action"].startswith("Confirm") or self.count("round.result") > results,
        )
        if self.count("round.result") == results:
            self.key("space")
            self.wait("the result", lambda s: self.count("round.result") > results)
        self.space_until("Settle", "round.settled")

    def wheel_number(self) -> dict[str, Any]:
        return self.wait(
            "the wheel's number to confirm", lambda s: s["croupier"]["action"].startswith("Confirm")
        )

    def dialog_holds_the_clock(self, title: str) -> dict[str, Any]:
        """With the dialog open past the auto-confirmation, nothing is confirmed behind it."""
        results = self.count("round.result")
        st = self.wait(f"the {title} dialog", lambda s: (s.get("dialog") or {}).get("title") == title)
        self.shot(title.lower().replace(" ", "-"))
        time.sleep(AUTO_CONFIRM_S + 2)
        assert self.count("round.result") == results, f"the result was confirmed behind the {title} dialog"
        return st

    def lucky_manual_round(self) -> None:
        """A Lucky win entered by hand: the wheel's number came, the croupier opens Manual result."""
        self.step = "lucky manual round"
        self.open_round()
        self.wagers(1, EVERY_NUMBER)
        self.space_until("No more bets", "round.bets_closed")
        draw = self.draw()
        lucky = next(int(n) for n in sorted(draw["lucky"], key=int) if int(n) != draw["bonus_number"])
        self.wheel_number()
        self.key("m")
        results = self.count("round.result")
        self.dialog_holds_the_clock("Manual result")
        self.fill("QLineEdit", "0-36", str(lucky))
        self.x("key", "Return")
        time.sleep(0.4)
        self.fill("QComboBox", "why", "the sensor's number is not the pocket")
        self.fill("QLineEdit", "0-36", str(lucky))
        self.x("key", "Return")
        self.wait(
            "the manual result", lambda s: s.get("dialog") is None and self.count("round.result") > results
        )
        result = self.journal("round.result")[-1][3]
        assert result["source"] == "manual" and result["number"] == lucky, result
        # Enter now (the key that closed the dialog, pressed again) must not settle what was typed.
        settled = self.count("round.settled")
        self.key("Return")
        st = self.wait("the refusal", lambda s: "press the big button" in s["croupier"]["reason"])
        assert self.count("round.settled") == settled, "Enter settled the round after the manual result"
        self.shot("lucky-manual-result")
        self.click(st["croupier"]["action_at"])  # the big button's own press settles
        self.wait("settled by the big button", lambda s: self.count("round.settled") > settled)
        paid = self.journal("round.settled")[-1][3]
        assert any(p["kind"] == "lucky" for p in paid["payouts"]), f"no Lucky win paid: {paid}"

    def dealer_change(self) -> None:
        self.step = "dealer change"
        changes = self.count("table.dealer_changed")
        self.key("ctrl+shift+d")
        self.sign_in(RELIEF, first=False)
        self.wait("the dealer change", lambda s: self.count("table.dealer_changed") > changes)
        change = self.journal("table.dealer_changed")[-1][3]
        assert (change["dealer"], change["previous"]) == (RELIEF[0], CROUPIER[0]), change

    def pit_boss_signs(self, reason: str) -> None:
        self.state()
        self.fill("QPlainTextEdit", "Reason", reason)
        self.fill("QLineEdit", "", PIT_BOSS[0])  # the user field has no placeholder
        self.fill("QLineEdit", "PIN", PIT_BOSS[1])
        self.press("QPushButton", "OK")

    def void_round(self) -> None:
        self.step = "void round"
        self.open_round()
        self.wagers(2, "red/25 8/5")
        voided = self.count("round.voided")
        self.key("ctrl+shift+v")
        self.wait("the void sign-off", lambda s: (s.get("dialog") or {}).get("class") == "SignOffDialog")
        self.shot("void-signoff")
        self.pit_boss_signs("wrong chips placed by the croupier")
        self.wait("the void", lambda s: s.get("dialog") is None and self.count("round.voided") > voided)
        assert self.journal("round.voided")[-1][3] is not None

    def dispute_round(self) -> None:
        """Two players cover every number; the croupier disputes the wheel's number: on hold."""
        self.step = "dispute round"
        self.open_round()
        self.wagers(1, EVERY_NUMBER)
        self.wagers(2, EVERY_NUMBER)
        self.space_until("No more bets", "round.bets_closed")
        self.wheel_number()
        holds = self.count("round.irregularity")
        self.key("ctrl+d")
        self.dialog_holds_the_clock("Dispute result")
        self.fill("QComboBox", "choose", "the ball is in another pocket")
        self.press("QPushButton", "Dispute result")
        self.wait("on hold", lambda s: s.get("dialog") is None and self.count("round.irregularity") > holds)
        self.wait("the hold shown", lambda s: s["croupier"]["phase"] == "ON HOLD")
        self.shot("on-hold")

    def resolve_hold_on_the_bonus_number(self) -> None:
        self.step = "resolve hold on the bonus number"
        bonus = self.draw()["bonus_number"]
        results = self.count("round.result")
        # On hold the big button offers the croupier's own remedy (a no-spin); the pit boss's
        # sign-off is the side button's (Ctrl+Shift+P).
        self.big_button("No-spin")
        self.key("ctrl+shift+p")
        self.wait(
            "the pit boss's sign-off", lambda s: (s.get("dialog") or {}).get("class") == "SignOffDialog"
        )
        self.press("QRadioButton", "Enter this round's result")
        self.wait("the manual result's fields", lambda s: bool(s.get("dialog")))
        self.fill("QLineEdit", "the ball's number", str(bonus))
        self.fill("QLineEdit", "the same number again", str(bonus))
        self.shot("hold-signoff")
        self.pit_boss_signs("checked at the wheel: the ball is in the Bonus Number's pocket")
        self.wait(
            "the hold resolved", lambda s: s.get("dialog") is None and self.count("round.result") > results
        )
        result = self.journal("round.result")[-1][3]
        assert result["number"] == bonus and result["source"] == "manual", result

    def bonus_games(self) -> None:
        """Both players start their bonus game on the bonus screen and pick until it is over."""
        self.step = "bonus games"
        # The games wait for their players on the bonus screen once the result is in (the big
        # button's "Start bonus games" when the table has not started them itself).
        self.wait(
            "the bonus games started",
            lambda s: (
                self.count("round.bonus_started") > 0 or s["croupier"]["action"].startswith("Start bonus")
            ),
        )
        if self.count("round.bonus_started") == 0:
            self.space_until("Start bonus games", "round.bonus_started")
        st = self.wait("two bonus panels", lambda s: len((s.get("bonus") or {}).get("panels", {})) == 2)
        self.shot("bonus-setup")
        deadline = time.monotonic() + 4 * STEP_S
        while time.monotonic() < deadline:
            st = self.state()
            self.look(st)
            panels = st["bonus"]["panels"]
            if all(p["finished"] for p in panels.values()):
                break
            for p in panels.values():
                if p["finished"]:
                    continue
                # A player starts the game, then picks the first hidden box each round (an X ends it).
                target = p["start"] or (p["boxes"][0] if p["boxes"] else None)
                if target is None:
                    continue
                if not target[2]:  # scrolled away in the column: the player scrolls to it
                    where = st["windows"]["Bonus game"]["frame"]
                    self.x("mousemove", str(where[0] + where[2] // 2), str(where[1] + where[3] // 2))
                    below = target[1] > where[1] + where[3] // 2
                    self.x("click", "--repeat", "4", "--delay", "50", "5" if below else "4")
                    time.sleep(0.3)
                    break
                self.click(target)
                time.sleep(0.4)
            self.shot_maybe_bonus()
        else:
            self.shot("bonus-stalled")
            pytest.fail(f"the bonus games did not end: {self.state().get('bonus')}")
        self.shot("bonus-over")
        assert self.count("bonus.ended") >= 2, "two bonus games ended"

    _bonus_shot = False

    def shot_maybe_bonus(self) -> None:
        if not self._bonus_shot:
            self._bonus_shot = True
            self.shot("bonus-playing")

    def settle_by_the_button(self) -> None:
        """After the pit boss's manual result a key must not settle: the big button's own press does."""
        self.step = "settle by the button"
        st = self.big_button("Settle")
        settled = self.count("round.settled")
        self.key("space")
        time.sleep(0.8)
        assert self.count("round.settled") == settled, "Space settled the round after a manual result"
        self.click(st["croupier"]["action_at"])
        self.wait("settled", lambda s: self.count("round.settled") > settled)
        self.shot("bonus-settled")

    def rounds_to(self, total: int) -> None:
        while self.count("round.settled") < total:
            self.plain_round()
            self.look_framed()


def _no_start_while_held(shift: Shift) -> list[str]:
    """Every start command sent to the wheel came while the round waited for its spin: never between
    a hold (the dispute's irregularity) and its result, never between the bonus games' start and
    the round's settlement."""
    spans = []
    entries = shift.journal()
    for i, (_seq, at, kind, _payload) in enumerate(entries):
        if kind == "round.irregularity":
            end = next(
                (e for e in entries[i:] if e[2] in ("round.result", "round.voided", "round.no_spin")), None
            )
            spans.append(("a hold", at, end[1] if end else None))
        if kind == "round.bonus_started":
            end = next((e for e in entries[i:] if e[2] == "round.settled"), None)
            spans.append(("a bonus game", at, end[1] if end else None))
    found = []
    for sent in shift.start_commands():
        for what, start, end in spans:
            begins = datetime.fromisoformat(start.rstrip("Z"))
            ends = datetime.fromisoformat(end.rstrip("Z")) if end else datetime.max
            if begins < sent < ends:
                found.append(f"the wheel was sent its start command at {sent} during {what} ({start}..{end})")
    return found


@pytest.mark.slow  # started first (tests/conftest.py)
@pytest.mark.parametrize("desktop", SIZES, indirect=True, ids=[f"{w}x{h}" for w, h in SIZES])
def test_a_whole_shift_at_the_croupier_station_on_a_real_screen(
    tmp_path: Path, desktop: tuple[str, tuple[int, int]]
) -> None:
    display, size = desktop
    shots = Path(os.environ.get("DRR_SHIFT_SHOTS") or tmp_path / "shots")
    shots.mkdir(parents=True, exist_ok=True)
    shift = Shift(display, size, tmp_path, shots)
    _users(shift.db)
    env = drr_env(
        tmp_path,
        DRR_CONFIG=str(_settings(tmp_path)),
        DISPLAY=display,
        QT_QPA_PLATFORM="xcb",
        PYTHONPATH=str(ROOT),  # this checkout's code (the venv may hold another checkout's)
        DRR_SHIFT_WHEEL_SPEED=WHEEL_SPEED,
    )
    with shift.station(env, "first"):
        shift.sign_in(CROUPIER, first=True)
        for _ in range(3):
            shift.plain_round()
        shift.shot("rounds")
        shift.lucky_manual_round()
        shift.dealer_change()
        shift.plain_round()
        shift.void_round()
        shift.dispute_round()
    held = shift.count("round.irregularity")
    # A restart in the middle of the hold: the station comes back on its journal, placed as before,
    # still on hold, and sends the wheel no start.
    with shift.station(env, "restarted"):
        shift.sign_in(RELIEF, first=False)
        shift.wait("still on hold after the restart", lambda s: s["croupier"]["phase"] == "ON HOLD")
        time.sleep(3)
        assert shift.count("round.irregularity") == held
        shift.shot("restarted-on-hold")
        shift.resolve_hold_on_the_bonus_number()
        shift.bonus_games()
        shift.settle_by_the_button()
        shift.rounds_to(ROUNDS)
        shift.look_framed()
    assert shift.problems == []
    assert _no_start_while_held(shift) == []
    assert shift.count("round.settled") >= ROUNDS and shift.count("round.voided") == 1
    assert shift.count("table.dealer_changed") >= 2
