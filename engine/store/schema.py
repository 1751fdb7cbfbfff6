"""The store's tables (SQLAlchemy 2 Core): one schema for SQLite at the table and PostgreSQL on the floor.

Conventions that keep both engines byte-identical (the journal's hashes depend on it):
- times are text, ISO 8601 UTC with microseconds and a `Z` (`2026-11-29T14:47:00.123456Z`); they sort
  as text and never pass through a driver's time-zone handling;
- money is an integer count of 1/10,000 of the currency unit (`MONEY_SCALE`), so sums are exact in SQL
  on both engines (SQLite has no exact NUMERIC);
- JSON documents are stored as canonical text (see `canonical.py`).
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    func,
    literal_column,
    or_,
)

from engine.entry_types import LEGACY, EntryType

MONEY_SCALE = 10_000

metadata = MetaData(
    naming_convention={
        "ix": "ix_%(column_0_label)s",
        "uq": "uq_%(table_name)s_%(column_0_name)s",
        "ck": "ck_%(table_name)s_%(constraint_name)s",
        "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
        "pk": "pk_%(table_name)s",
    }
)

# The write-ahead, hash-chained journal: one chain per table id.
journal = Table(
    "journal",
    metadata,
    Column("table_id", String(64), primary_key=True),
    Column("seq", BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=False),
    Column("time", String(32), nullable=False),
    Column("user_name", String(64)),
    Column("round_id", String(64)),
    Column("type", String(64), nullable=False),
    Column("payload", Text, nullable=False),
    Column("prev_hash", String(64), nullable=False),
    Column("hash", String(64), nullable=False),
    # HMAC-SHA256 (hex) over `hash` with the table key's MAC key (engine.store.keys); NULL before keys
    # had MACs (migration 0008) and on an unsigned chain.
    Column("mac", String(64)),
    # On a chain every host writes (the floor chain of a PostgreSQL floor database,
    # engine.store.floor_sign): the public key (hex) of the writer that signed the entry and its
    # Ed25519 signature over (table, seq, hash); NULL elsewhere (migration 0014).
    Column("signer", String(64)),
    Column("sig", String(128)),
)
Index("ix_journal_round", journal.c.round_id)
# The entries a restart seeds its state from before the last round (engine.table.recovery: Rules
# Submissions, bonus presets, settings, the dealer, quarantine, with their old spellings): few, so a partial
# index finds them without reading a years-long journal. Migration 0008 made the index with these
# values as literals, in this order; a change here needs a migration (a test checks the index is used).
_SEED = (
    EntryType.TABLE_RULES_LOADED,
    EntryType.BONUS_PRESET_SET,
    EntryType.TABLE_SETTINGS_CHANGED,
    EntryType.TABLE_DEALER_CHANGED,  # who deals the next round
    EntryType.TABLE_QUARANTINED,
)
SEED_TYPES: tuple[str, ...] = (*(t.value for t in _SEED), *(n for n, t in LEGACY.items() if t in _SEED))
SEED_FILTER = journal.c.type.in_([literal_column(f"'{t}'") for t in SEED_TYPES])
Index(
    "ix_journal_seed",
    journal.c.table_id,
    journal.c.seq,
    sqlite_where=SEED_FILTER,
    postgresql_where=SEED_FILTER,
)
# The floor chain's root key and its writers' enrolments (engine.store.floor_sign): read before every
# floor write on a PostgreSQL floor database, so found through a partial index (migration 0014).
KEYING_TYPES: tuple[str, ...] = (EntryType.CHAIN_KEYED.value, EntryType.CHAIN_WRITER_ENROLLED.value)
KEYING_FILTER = journal.c.type.in_([literal_column(f"'{t}'") for t in KEYING_TYPES])
Index(
    "ix_journal_keying",
    journal.c.table_id,
    journal.c.seq,
    sqlite_where=KEYING_FILTER,
    postgresql_where=KEYING_FILTER,
)

# The head of each chain, updated in the same transaction as every append; also the writers' lock row.
chain_heads = Table(
    "chain_heads",
    metadata,
    Column("table_id", String(64), primary_key=True),
    Column("seq", BigInteger, nullable=False),
    Column("hash", String(64), nullable=False),
    # Ed25519 signature (hex) over (table, seq, hash) by the table's key (engine.store.keys); NULL on an
    # unsigned chain (before keys, or a floor copy).
    Column("sig", String(128)),
)

# Count + head hash, every CHECKPOINT_EVERY entries and at clean shutdown: truncation shows against these.
checkpoints = Table(
    "checkpoints",
    metadata,
    Column("table_id", String(64), primary_key=True),
    Column("seq", BigInteger, primary_key=True, autoincrement=False),
    Column("hash", String(64), nullable=False),
    Column("time", String(32), nullable=False),
    Column("reason", String(16), nullable=False),
    Column("sig", String(128)),  # as chain_heads.sig
)

# The floor's record of the signed heads it received from each table's forwarder (engine.store.signed_heads):
# the table key's signature with the head, kept (thinned: one every few minutes or checkpoint interval)
# so a floor copy cut or rolled back behind a head the table once signed fails `drr audit verify`.
signed_heads = Table(
    "signed_heads",
    metadata,
    Column("table_id", String(64), primary_key=True),
    Column("seq", BigInteger, primary_key=True, autoincrement=False),
    Column("hash", String(64), nullable=False),
    Column("sig", String(128), nullable=False),
    Column("received_at", String(32), nullable=False),
)

# Who owns a table's journal right now (pid, host, station); the OS lock is what really excludes.
owners = Table(
    "owners",
    metadata,
    Column("table_id", String(64), primary_key=True),
    Column("pid", Integer, nullable=False),
    Column("host", String(255), nullable=False),
    Column("station", String(64), nullable=False),
    Column("since", String(32), nullable=False),
)

# Projection: one row per round, driven by the round.* / history.imported journal events.
rounds = Table(
    "rounds",
    metadata,
    Column("table_id", String(64), primary_key=True),
    Column("round_id", String(64), primary_key=True),
    Column("seq", BigInteger, nullable=False),  # journal seq of the event that created the row
    Column("status", String(16), nullable=False),
    Column("source", String(16), nullable=False),  # "table" or "import"
    Column("opened_at", String(32), nullable=False),
    Column("closed_at", String(32)),
    Column("result_at", String(32)),
    Column("settled_at", String(32)),
    Column("result", Integer),
    Column("lucky", Text),  # canonical JSON [[number, "odds"], ...]
    Column("lucky_count", Integer, nullable=False, default=0),
    Column("bonus_number", Integer),
    Column("lucky_hit", Boolean, nullable=False, default=False),
    Column("bonus_hit", Boolean, nullable=False, default=False),
    Column("wagered", BigInteger, nullable=False, default=0),
    Column("paid", BigInteger, nullable=False, default=0),  # what the wagers won, stakes not included
    Column("manual", Boolean, nullable=False, default=False),
    Column("irregularities", Integer, nullable=False, default=0),
    Column("dealer", String(64)),
    Column("direction", String(8)),
    Column("game_number", Integer),
    Column("note", Text),
    Column("handle", Text),  # canonical JSON {bet: units} of the settled wagers, by the wire's bet name
    Column("returned", BigInteger, nullable=False, default=0, server_default="0"),  # paid + winners' stakes
    Column("rules_sha256", String(64)),  # the Rules Submission it was opened under (None: imported)
)
Index("ix_rounds_table_seq", rounds.c.table_id, rounds.c.seq)
# A restart counts the table's rounds by status (engine.table.recovery) from this index alone, not by
# reading every round's row (migration 0008).
Index("ix_rounds_table_source_status", rounds.c.table_id, rounds.c.source, rounds.c.status)
Index("ix_rounds_table_opened", rounds.c.table_id, rounds.c.opened_at)
Index("ix_rounds_round_id", rounds.c.round_id)
Index("ix_rounds_time_table_round", rounds.c.opened_at, rounds.c.table_id, rounds.c.round_id)
# The pit boss's "irregular only" filter: such rounds are few, so partial indexes find a page of them
# at once instead of scanning every round (migration 0005). Filters must use this same expression.
IRREGULAR = or_(rounds.c.irregularities > 0, rounds.c.manual.is_(True), rounds.c.status == "void")
Index("ix_rounds_irregular", rounds.c.opened_at, rounds.c.table_id, rounds.c.round_id,
      sqlite_where=IRREGULAR, postgresql_where=IRREGULAR)  # fmt: skip
Index("ix_rounds_table_irregular", rounds.c.table_id, rounds.c.opened_at, rounds.c.round_id,
      sqlite_where=IRREGULAR, postgresql_where=IRREGULAR)  # fmt: skip
# The history browser's sort by payout, over every table or one.
Index("ix_rounds_paid", rounds.c.paid, rounds.c.table_id, rounds.c.round_id)
Index("ix_rounds_table_paid", rounds.c.table_id, rounds.c.paid, rounds.c.round_id)
# ... by wagered and by result (migration 0010). RESULT_KEY is the result sort's expression (a round
# without a result sorts below 0); a query must spell it the same way for an index to serve it.
RESULT_KEY = func.coalesce(rounds.c.result, literal_column("-1"))
# An open round's `wagered` changes at every chip placed or taken back (the projections keep it as
# placed, migration 0011), and every index holding it is rewritten with it: so the sort's indexes hold
# only the rounds no longer open (migration 0015), and the history browser's wagered sort adds the few
# open rounds (found through ix_rounds_open) to the page it walks. A query must spell NOT_OPEN this
# way (the value a literal, not a bound parameter) for an index to serve it.
NOT_OPEN = rounds.c.status != literal_column("'open'")
OPEN = rounds.c.status == literal_column("'open'")
Index("ix_rounds_wagered", rounds.c.wagered, rounds.c.table_id, rounds.c.round_id,
      sqlite_where=NOT_OPEN, postgresql_where=NOT_OPEN)  # fmt: skip
Index("ix_rounds_table_wagered", rounds.c.table_id, rounds.c.wagered, rounds.c.round_id,
      sqlite_where=NOT_OPEN, postgresql_where=NOT_OPEN)  # fmt: skip
Index("ix_rounds_open", rounds.c.table_id, rounds.c.round_id, sqlite_where=OPEN, postgresql_where=OPEN)
Index("ix_rounds_result", RESULT_KEY, rounds.c.table_id, rounds.c.round_id)
Index("ix_rounds_table_result", rounds.c.table_id, RESULT_KEY, rounds.c.round_id)
# The "bonus hit: yes" filter finds its few rounds through this partial index.
BONUS_HIT = rounds.c.bonus_hit.is_(True)
Index("ix_rounds_bonus_hit", rounds.c.opened_at, rounds.c.table_id, rounds.c.round_id,
      sqlite_where=BONUS_HIT, postgresql_where=BONUS_HIT)  # fmt: skip
Index("ix_rounds_table_bonus_hit", rounds.c.table_id, rounds.c.opened_at, rounds.c.round_id,
      sqlite_where=BONUS_HIT, postgresql_where=BONUS_HIT)  # fmt: skip
# A filter over every table that leaves a few percent of the rounds (a result, bonus hit, irregular
# only; lucky hit: no sorted by payout, whose largest payouts are all lucky hits) is too many rounds to
# sort and too few to find quickly along the sort's own index: each such (filter, sort) pair has an
# index of its own, the filter's value (or predicate) first, then the sort's key (migration 0013;
# engine.floor.history_page.PAIRED names them).
Index("ix_rounds_result_opened", RESULT_KEY, rounds.c.opened_at, rounds.c.table_id, rounds.c.round_id)
Index(
    "ix_rounds_result_wagered",
    RESULT_KEY,
    rounds.c.wagered,
    rounds.c.table_id,
    rounds.c.round_id,
    sqlite_where=NOT_OPEN,
    postgresql_where=NOT_OPEN,
)  # partial as ix_rounds_wagered: a wager to an open round does not write it
Index("ix_rounds_result_paid", RESULT_KEY, rounds.c.paid, rounds.c.table_id, rounds.c.round_id)
Index("ix_rounds_lucky_paid", rounds.c.lucky_hit, rounds.c.paid, rounds.c.table_id, rounds.c.round_id)
_PAIRED_KEYS = {
    "result": (RESULT_KEY,),
    "wagered": (rounds.c.wagered,),
    "paid": (rounds.c.paid,),
    "table": (),
}
for _flag, _where in (("bonus_hit", BONUS_HIT), ("irregular", IRREGULAR)):
    for _sort, _key in _PAIRED_KEYS.items():
        Index(f"ix_rounds_{_flag}_{_sort}", *_key, rounds.c.table_id, rounds.c.round_id,
              sqlite_where=_where, postgresql_where=_where)  # fmt: skip

# Aggregate: spins per number, per table, per UTC day, per rotor direction ("" when unknown).
number_counts = Table(
    "number_counts",
    metadata,
    Column("table_id", String(64), primary_key=True),
    Column("day", String(10), primary_key=True),
    Column("direction", String(8), primary_key=True),
    Column("number", Integer, primary_key=True, autoincrement=False),
    Column("spins", BigInteger, nullable=False),
)

# Aggregate: per table and UTC day, the draw hits and the money.
daily_totals = Table(
    "daily_totals",
    metadata,
    Column("table_id", String(64), primary_key=True),
    Column("day", String(10), primary_key=True),
    Column("spins", BigInteger, nullable=False, default=0),
    Column("drawn_spins", BigInteger, nullable=False, default=0),  # spins whose round had a draw
    Column("lucky_drawn", BigInteger, nullable=False, default=0),  # sum of k over those spins
    Column("lucky_hits", BigInteger, nullable=False, default=0),
    Column("bonus_hits", BigInteger, nullable=False, default=0),
    Column("settled", BigInteger, nullable=False, default=0),
    Column("voided", BigInteger, nullable=False, default=0),
    Column("irregularities", BigInteger, nullable=False, default=0),
    Column("wagered", BigInteger, nullable=False, default=0),
    Column("paid", BigInteger, nullable=False, default=0),
    Column("returned", BigInteger, nullable=False, default=0, server_default="0"),
)

# Aggregate: per table, UTC day and kind of bet (the wire's name: straight, split, red, dozen…), the
# handle of settled rounds; with each kind's house edge it gives the theoretical win.
daily_handle = Table(
    "daily_handle",
    metadata,
    Column("table_id", String(64), primary_key=True),
    Column("day", String(10), primary_key=True),
    Column("bet", String(16), primary_key=True),
    Column("wagered", BigInteger, nullable=False),
)

# Every Rules Submission a table of the store has loaded, by the sha256 of its exact text: the rules
# a round was played under (`rounds.rules_sha256`), for recall, approvals, reports and history. Filled
# by the projections from `table.rules_loaded` / `rules.changed` entries, whose text stays the
# evidence (engine.store.rules_store checks the text against its sha256 on every read). `first_*`:
# the earliest entry that loaded it (by time, table, seq), whatever the order the entries came in.
rules_submissions = Table(
    "rules_submissions",
    metadata,
    Column("sha256", String(64), primary_key=True),
    Column("name", Text, nullable=False),
    Column("text", Text, nullable=False),
    Column("first_time", String(32), nullable=False),
    Column("first_table", String(64), nullable=False),
    Column("first_seq", BigInteger, nullable=False),
)

# Users of every station; PINs as salted scrypt hashes.
users = Table(
    "users",
    metadata,
    Column("name", String(64), primary_key=True),
    Column("role", String(16), nullable=False),
    Column("pin_hash", String(255), nullable=False),
    Column("disabled", Boolean, nullable=False, default=False),
    Column("failures", Integer, nullable=False, default=0),
    Column("locked_until", String(32)),
    Column("created_at", String(32), nullable=False),
)
