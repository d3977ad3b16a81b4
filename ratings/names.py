"""Comparing player names the way a rating officer does: one function, used wherever a name is
compared (imports, the registry, seeding, the web search).

Each format writes a person's name its own way: FIDE's ``Klein, Klaus``, EGD's ``Klein Klaus`` and
``de_Vries Dirk`` (``_`` for a space inside a surname), upper-case surnames, ``Łuczak`` or its
ASCII form ``Luczak``. :func:`name_key` folds all of them to one key: ASCII (``anyascii``
transliterates every script, not just accents), lower case, separators as spaces, surname particles
joined to what follows them (``van der Berg`` and ``Vanderberg`` are one spelling), and the words
sorted, so the order a format puts surname and first names in does not count.

A ``?`` or U+FFFD in a name is what a file written in one encoding and read in another shows for a
letter it lost: :func:`is_suspect` says so, and such a name is a reason to ask, never a new person.
:func:`similarities` scores keys 0-100 (``rapidfuzz``), the one score of the import's review and
of ``players search``, and :func:`block_keys` gives the buckets a name is compared within, so that
finding the players close to a name never scores every pair.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

import polars as pl
from anyascii import anyascii

PARTICLES = frozenset({
    "de", "da", "das", "del", "della", "der", "des", "di", "do", "dos", "du", "la", "le", "van",
    "von", "ten", "ter", "den", "het", "zu", "st", "saint", "mc", "mac",
})  # fmt: skip
"""Words that belong to the surname word after them. ``mc``/``mac`` are here for ``Mc Donald``,
which is ``McDonald``; ``Mc`` and ``Mac`` stay different spellings (fuzzy scoring finds them)."""

_SEPARATORS = re.compile(r"[\s_\-‐‑‒–—,./;:()\[\]\"]+")
_DROPPED = re.compile(r"['`´’‘]")
LOST_LETTER = re.compile("[?\ufffd]")
"""What a wrong encoding leaves where a letter was."""


def _fold(text: str) -> str:
    text = text.replace("\ufffd", "?")
    if not text.isascii():
        # anyascii drops nothing but makes ``?`` of nothing either: the marks of a wrong encoding
        # stay as they were, for is_suspect and for the review to show.
        text = anyascii(text)
    return _DROPPED.sub("", text.casefold())


def _words(text: str) -> list[str]:
    return [w for w in _SEPARATORS.split(text) if w]


def name_key(name: str) -> str:
    """The form of a name used for matching: ``"Klein, Klaus"``, ``"KLEIN Klaus"`` and
    ``"Klaus Klein"`` → ``"klaus klein"``; ``"de_Vries Dirk"``, ``"Vries, Dirk de"`` and
    ``"Dirk de Vries"`` → ``"devries dirk"``; ``"Łuczak"`` → ``"luczak"``."""
    return " ".join(sorted(_joined_words(_fold(name))))


def _joined_words(folded: str) -> list[str]:
    """The words of a folded name in the key's sense: "Last, First" put in order, particles
    joined to the word after them."""
    if "," in folded:
        # "Last, First": Dutch and Belgian lists write the particles after the first names
        # ("Vries, Dirk de"); they belong in front of the surname.
        last, first = folded.split(",", 1)
        first_words = _words(first)
        trailing: list[str] = []
        while first_words and first_words[-1] in PARTICLES and len(first_words) > 1:
            trailing.insert(0, first_words.pop())
        words = [*trailing, *_words(last), *first_words]
    else:
        words = _words(folded)
    return _join_particles(words)


def _join_particles(words: list[str]) -> list[str]:
    joined: list[str] = []
    pending = ""
    for word in words:
        if word in PARTICLES:
            pending += word
        else:
            joined.append(pending + word)
            pending = ""
    if pending:
        joined.append(pending)
    return joined


def name_key_expr(column: str, folded: dict[str, str] | None = None) -> pl.Expr:
    """:func:`name_key` as a polars expression, for whole columns at once (each distinct name is
    folded once). ``folded``, when given, holds the keys of the names folded before and is
    given those folded here: the new players of a file's slices fold each name once, however
    many players write it."""
    return pl.col(column).map_batches(
        lambda names: _fold_series(names, folded), return_dtype=pl.String
    )


def alphabetical_expr(column: str) -> pl.Expr:
    """The name folded but in its own word order, for sorting names alphabetically (a matching
    key sorts its words, so it does not sort names as people read them)."""
    return pl.col(column).map_batches(
        lambda names: page_forms(names).get_column("alphabetical"), return_dtype=pl.String
    )


def search_words(name: str) -> list[str]:
    """The words a search for ``name`` finds it by, each typed as its start: the words of its
    :func:`name_key` (``vanderberg``) and, where particles were joined, each word as written
    (``van``, ``der``, ``berg``), so that ``berg`` finds ``Dirk van der Berg``. A search folds
    what was typed with :func:`name_key` and looks for names having a word that starts with each
    of its words: ``holler`` finds every ``Höller``, ``aut`` does not find ``Gauthier``."""
    folded = _fold(name)
    return sorted({*_joined_words(folded), *_words(folded)})


def search_words_expr(column: str) -> pl.Expr:
    """:func:`search_words` as a polars expression: the words of each name joined by a space
    (no word holds one), which ``str.split(" ")`` makes a list of; each distinct name is folded
    once."""
    return pl.col(column).map_batches(
        lambda names: page_forms(names).get_column("words"), return_dtype=pl.String
    )


def page_forms(names: pl.Series) -> pl.DataFrame:
    """Both forms a list page reads of each name, row by row: ``alphabetical``
    (:func:`alphabetical_expr`) and ``words`` (:func:`search_words` joined by a space). On a
    federation's list nearly every name differs, and folding them is what publishing spends its
    time on: each distinct name is transliterated once for both, and a name that is then plain
    printable ASCII without a particle (most are) is folded by polars for the whole column at
    once, its words being its separated words whatever their order; the rest one by one."""
    distinct = names.drop_nulls().unique().alias("name")
    beyond_ascii = distinct.str.contains(r"[^\x00-\x7f]").arg_true()
    text = distinct.clone().scatter(
        beyond_ascii,
        pl.Series([anyascii(t) for t in distinct.gather(beyond_ascii).to_list()], dtype=pl.String),
    )
    columns = pl.DataFrame({"name": distinct, "text": text}).with_columns(
        pl.col("text").str.to_lowercase().alias("lowered")
    )
    columns = columns.with_columns(
        pl.col("lowered").str.replace_all(" +", " ").str.strip_chars(" ").alias("alphabetical"),
        pl.col("lowered")
        .str.replace_all(_ASCII_DROPPED, "")
        .str.replace_all(_ASCII_SEPARATORS, " ")
        .str.strip_chars(" ")
        .str.split(" ")
        .list.eval(pl.element().filter(pl.element() != ""))
        .alias("split"),
    )
    plain = (
        ~pl.col("name").str.contains("\ufffd", literal=True)
        & pl.col("text").str.contains(_PRINTABLE_ASCII)
        & ~pl.col("split").list.eval(pl.element().is_in(sorted(PARTICLES))).list.any()
    )
    columns = columns.with_columns(plain.alias("plain"))
    fast = columns.filter("plain").select(
        "name",
        "alphabetical",
        pl.col("split").list.eval(pl.element().unique().sort()).list.join(" ").alias("words"),
    )
    rest = columns.filter(~pl.col("plain")).get_column("name").to_list()
    slow = [_page_forms(name) for name in rest]
    lookup = pl.concat([
        fast,
        pl.DataFrame(
            {
                "name": rest,
                "alphabetical": [order for order, _ in slow],
                "words": [found for _, found in slow],
            },
            schema={"name": pl.String, "alphabetical": pl.String, "words": pl.String},
        ),
    ])  # fmt: skip
    return (
        names.alias("name")
        .to_frame()
        .join(lookup, on="name", how="left", maintain_order="left")
        .select("alphabetical", "words")
    )


_PRINTABLE_ASCII = r"^[\x20-\x7e]*$"
_ASCII_DROPPED = r"['`]"
_ASCII_SEPARATORS = r"[ _\-,./;:()\[\]\"]+"
""":data:`_DROPPED` and :data:`_SEPARATORS` within printable ASCII, for polars."""


def _page_forms(name: str) -> tuple[str, str]:
    """(alphabetical form, search words joined by a space) of one name, sharing the
    transliteration and case folding :func:`_fold` would do again."""
    lowered = (name if name.isascii() else anyascii(name)).casefold()
    alphabetical = " ".join(lowered.split())
    # _fold marks a lost letter before transliterating, which the alphabetical form does not.
    folded = _fold(name) if "\ufffd" in name else _DROPPED.sub("", lowered)
    words = _words(folded)
    joined = _joined_words(folded) if "," in folded else _join_particles(words)
    return alphabetical, " ".join(sorted({*joined, *words}))


def word_range(start: str) -> tuple[str, str]:
    """The bounds ``[low, high)`` of the words starting with ``start``, in the code-point order
    an index of words is kept in: a search for a word's start is a range of that index."""
    return start, start[:-1] + chr(ord(start[-1]) + 1)


def _fold_series(names: pl.Series, folded: dict[str, str] | None = None) -> pl.Series:
    known = {} if folded is None else folded
    keys = {}
    for name in names.drop_nulls().unique().to_list():
        key = known.get(name)
        if key is None:
            key = known[name] = name_key(name)
        keys[name] = key
    return names.replace_strict(keys, default=None, return_dtype=pl.String)


def is_suspect(name: str) -> bool:
    """True when the name lost a letter to a wrong encoding (``?uczak``, ``�uczak``, or UTF-8 read
    as Latin-1: ``Å\x81uczak``)."""
    if LOST_LETTER.search(name):
        return True
    for wrong in ("cp1252", "latin-1"):
        try:
            repaired = name.encode(wrong).decode("utf-8")
        except (UnicodeEncodeError, UnicodeDecodeError):
            continue
        if repaired != name:
            return True
    return False


def similarity(first: str, second: str) -> float:
    """How alike two name keys are, 0 to 100 (100: the same key): :func:`similarities` of one
    pair."""
    return float(similarities(pl.Series([first]), pl.Series([second]))[0])


MOVED_UP_TO = 4
"""Keys of up to this many words are also scored with one word moved (:func:`similarities`)."""


def _one_word_moved(n: int) -> list[list[int]]:
    """The orders of ``n`` words with one word moved elsewhere, each once."""
    orders: set[tuple[int, ...]] = set()
    for source in range(n):
        for target in range(n):
            order = [i for i in range(n) if i != source]
            order.insert(target, source)
            orders.add(tuple(order))
    orders.discard(tuple(range(n)))
    return [list(o) for o in sorted(orders)]


_MOVES = pl.DataFrame(
    [(n, order) for n in range(2, MOVED_UP_TO + 1) for order in _one_word_moved(n)],
    schema={"_n": pl.UInt32, "_order": pl.List(pl.UInt32)},
    orient="row",
)


def similarities(first: pl.Series, second: pl.Series) -> pl.Series:
    """How alike each pair of name keys is, 0 to 100: the one score of names, that both the
    import's review and ``players search`` give.

    It is rapidfuzz's ``ratio`` (2 x the matching letters / both lengths) of the keys, the first
    taken in its own word order or, when it has two words or a lost letter (and at most
    :data:`MOVED_UP_TO` words), with one of its words moved, whichever fits best. A key sorts its
    words, so a word whose first letter was lost or mistyped sorts elsewhere: ``?uczak jakub``
    is scored as ``jakub ?uczak`` against ``jakub luczak``, ``glein klaus`` as ``klaus glein``
    against ``klaus klein``. (Longer names with a mistyped first letter keep the score of their
    own order: trying every order of their words costs ten times the scoring of a large import.)
    Moving words never changes a key's length, so a pair whose lengths differ too much cannot
    reach a score, as for ``ratio`` alone."""
    if first.len() == 0:
        return pl.Series(values=[], dtype=pl.Float64)
    # Loaded by the scoring only: a list's pages fold names (name_key) and never score them.
    from rapidfuzz import fuzz

    if first.len() <= PAIR_BY_PAIR_UP_TO:
        pairs = zip(first.fill_null("").to_list(), second.fill_null("").to_list(), strict=True)
        return pl.Series(
            [_similarity(key, known, fuzz.ratio) for key, known in pairs], dtype=pl.Float64
        )
    import numpy as np
    from rapidfuzz import process

    keys = first.fill_null("")
    known = second.fill_null("").to_list()
    best = process.cpdist(keys.to_list(), known, scorer=fuzz.ratio, dtype=np.float64)
    words = keys.str.split(" ")
    count = words.list.len().to_numpy()
    lost = keys.str.contains(LOST_LETTER.pattern).to_numpy()
    for n in range(2, MOVED_UP_TO + 1):
        rows = np.flatnonzero((count == n) & (lost | (n == 2)))
        if rows.size == 0:
            continue
        theirs = [known[i] for i in rows]
        some = words.gather(rows)
        for order in _one_word_moved(n):
            moved = some.list.gather(order).list.join(" ").to_list()
            scores = process.cpdist(moved, theirs, scorer=fuzz.ratio, dtype=np.float64)
            best[rows] = np.maximum(best[rows], scores)
    return pl.Series(best, dtype=pl.Float64)


PAIR_BY_PAIR_UP_TO = 2_000
"""Up to this many pairs :func:`similarities` scores them one by one (:func:`_similarity`), the
same scores without loading numpy: a search or a small import answers sooner."""


@functools.cache
def _orders(n: int) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(order) for order in _one_word_moved(n))


def _similarity(key: str, known: str, ratio: Callable[[str, str], float]) -> float:
    """:func:`similarities` of one pair, in plain Python (``ratio``: rapidfuzz's)."""
    best = float(ratio(key, known))
    words = key.split(" ")
    if 2 <= len(words) <= MOVED_UP_TO and (len(words) == 2 or LOST_LETTER.search(key)):
        for order in _orders(len(words)):
            moved = " ".join(words[i] for i in order)
            best = max(best, float(ratio(moved, known)))
    return best


BLOCK_PREFIX = 2
"""Letters of the other word in a bucket: one letter makes the buckets of common first names hold
tens of thousands of players at federation scale; two cut them by an order of magnitude and still
miss only typos in the first two letters of both words."""


def block_keys(key: str) -> list[str]:
    """The buckets a name key is compared within: each word with the first letters of each other
    word (``klaus klein`` → ``klaus|kl``, ``klein|kl``), so a typo in one word still shares a
    bucket with the right name. Words with a lost letter make no bucket (see
    :func:`word_patterns`)."""
    words = key.split()
    if len(words) == 1:
        return [] if LOST_LETTER.search(words[0]) else [f"{words[0]}|"]
    return sorted(
        {
            f"{word}|{other[:BLOCK_PREFIX]}"
            for i, word in enumerate(words)
            if not LOST_LETTER.search(word)
            for j, other in enumerate(words)
            if i != j and not LOST_LETTER.search(other[:BLOCK_PREFIX])
        }
    )


def word_patterns(key: str) -> list[str]:
    """For a name with a lost letter, one regular expression per word, a lost letter matching any
    one letter: ``?uczak pawel`` → ``^.uczak$``, ``^pawel$``; the players having a word that matches
    one of them are its candidates."""
    return sorted(
        {"^" + LOST_LETTER.sub(".", re.escape(w).replace("\\?", "?")) + "$" for w in key.split()}
    )


def fits_lost_letters(key: str, known: str) -> bool:
    """True when ``known`` is ``key`` with each lost letter filled in (``?uczak pawe?`` fits
    ``luczak pawel``)."""
    if not LOST_LETTER.search(key):
        return key == known
    pattern = "".join("." if LOST_LETTER.match(c) else re.escape(c) for c in key)
    return re.fullmatch(pattern, known) is not None


def fits_initials(key: str, known: str) -> bool:
    """True when two keys are the same words but for initials standing for whole words
    (``d devries`` fits ``devries dirk``): enough to agree with a matching external id."""
    first, second = key.split(), known.split()
    if len(first) != len(second):
        return False
    rest_first = [w for w in first if w not in second]
    rest_second = [w for w in second if w not in first]
    if len(rest_first) != len(rest_second):
        return False
    for a, b in zip(sorted(rest_first, key=len), sorted(rest_second, key=len), strict=True):
        short, long = (a, b) if len(a) <= len(b) else (b, a)
        if len(short) != 1 or not long.startswith(short):
            return False
    return True


ANY_SCHEME = ""
"""The scheme of a spelling remembered for files of every format (a player's alias is kept per
format, ``trf``, ``h9``...): the name a player had before the officer renamed him."""


HANDLE = re.compile(r"\d|^[^\s_]+(?:_[^\s_]+)+$")
"""A name written as an online handle: with digits, or words joined by ``_`` with no space
(``Klaus_Klein``, ``kklein92``). EGD's ``de_Vries Dirk`` (``_`` for a space inside one part, a
space between the parts) is a name."""


def is_handle(name: str) -> bool:
    """True when ``name`` is written as a handle (:data:`HANDLE`): a match by such a name alone
    is asked about, never taken silently."""
    return bool(HANDLE.search(name.strip()))


LOWER_PARTICLES = frozenset({
    "van", "von", "der", "den", "ter", "ten", "het", "zu", "de", "da", "das", "do", "dos", "di",
    "del", "della", "du", "des",
})  # fmt: skip
"""Particles written in lower case inside a family name that a file wrote in capitals
(``VAN DER BERG`` → ``van der Berg``); the others (``LE``, ``LA``, ``ST``) are capitalised."""


def _capitals(word: str) -> bool:
    """A word written in capitals: upper case with at least two letters (``EVAIN``, not ``J.``)."""
    return word.isupper() and (word.isalpha() or sum(c.isalpha() for c in word) >= 2)


def _usual_case(word: str, inside: bool) -> str:
    """A word of a family name out of capitals: each part between ``-`` and ``'`` capitalised
    (``JEAN-PIERRE`` → ``Jean-Pierre``, ``O'NEIL`` → ``O'Neil``), ``MC`` kept as ``Mc``
    (``MCDONALD`` → ``McDonald``); a particle before the family name's last word (``inside``)
    as :data:`LOWER_PARTICLES` says. A word not in capitals is kept as written."""
    if not _capitals(word):
        return word
    lowered = word.lower()
    if inside and lowered in LOWER_PARTICLES:
        return lowered
    if lowered.startswith("mc") and len(lowered) > 3:
        return "Mc" + lowered[2:].capitalize()
    if "-" not in lowered and "'" not in lowered:
        return lowered.capitalize()
    return _LETTERS.sub(lambda m: m.group(0).capitalize(), lowered)


_LETTERS = re.compile(r"[^\W\d_]+")


def _family(words: list[str]) -> str:
    return " ".join(_usual_case(w, i < len(words) - 1) for i, w in enumerate(words))


def display_name(name: str) -> str:
    """The form a player created from a file is shown by: given names first, ``_`` as a space,
    a family name written in capitals in its usual case. The rules, in order:

    - ``Last, First`` (one comma): ``Whalley, Anthony`` → ``Anthony Whalley``; particles after
      the first names go with the family name (``Vries, Dirk de`` → ``Dirk de Vries``);
    - two parts with ``_`` inside one of them, EGD's ``Surname Given`` (``_`` for a space inside
      a part): ``Le_Flochmoen Eric`` → ``Eric Le Flochmoen``, ``Pham Minh_Quang`` → ``Minh Quang
      Pham``; any other ``_`` is a space, in the order written (``Klaus_Klein``);
    - words in capitals before words that are not (``EVAIN Andéol``) are the family name, put
      after the given names: ``Andéol Evain``; in capitals after them (``Klaus KLEIN``) or
      elsewhere, they keep their place;
    - a family name in capitals is put in its usual case (:func:`_usual_case`); a name all in
      capitals keeps its order (family and given names cannot be told), each word in its usual
      case; any other name is kept as written.

    The display form folds to the same :func:`name_key` as the name: it never changes how a
    name compares (a name it would change is kept as written)."""
    if re.search(_NOT_A_NAME, name):
        return name
    shown = _displayed(" ".join(name.split()))
    return shown if name_key(shown) == name_key(name) else name


_NOT_A_NAME = "[^\\w\\s,.'’?\ufffd-]"
"""A character no person's name holds (``=``, quotes, brackets, ``/``): such a text is shown as
the file wrote it, never turned round at a comma (``=HYPERLINK("http://x","y")``). The pattern
reads alike in Python's ``re`` and in polars."""


def _displayed(text: str) -> str:
    if text.count(",") == 1:
        last, first = (" ".join(part.replace("_", " ").split()) for part in text.split(","))
        if last and first:
            first_words = first.split()
            trailing: list[str] = []
            while len(first_words) > 1 and first_words[-1].casefold() in PARTICLES:
                trailing.insert(0, first_words.pop())
            given = " ".join(_usual_case(w, False) for w in first_words)
            return f"{given} {_family([*trailing, *last.split()])}"
        return text
    parts = text.split(" ")
    if "_" in text:
        if len(parts) == 2 and all(p.strip("_") for p in parts):
            family_words, given_words = (p.replace("_", " ").split() for p in parts)
            given_names = " ".join(_usual_case(w, False) for w in given_words)
            return f"{given_names} {_family(family_words)}"
        return " ".join(text.replace("_", " ").split())
    capitals = [_capitals(w) for w in parts]
    if all(capitals):
        return " ".join(_usual_case(w, False) for w in parts)
    if capitals[0]:
        run = capitals.index(False)
        if not any(capitals[run:]):
            given = " ".join(parts[run:])
            return f"{given} {_family(parts[:run])}"
    return " ".join(_usual_case(w, False) for w in parts)


_MAYBE_CHANGED = r"[_,]|\p{Lu}\p{Lu}|\s\s|^\s|\s$"
"""A name :func:`display_name` may change: the rest are kept as they are, in bulk."""


_LAST_FIRST = r"^([^\W\d_]+), ([^\W\d_]+(?: [^\W\d_]+)*)$"
"""``Family, Given names``: one family name of letters, given names of letters, one space each."""


def display_names(names: pl.Series) -> pl.Series:
    """:func:`display_name` of a column: only the names it may change (:data:`_MAYBE_CHANGED`)
    are looked at, each distinct name once; the commonest of them, ``Family, Given`` (a family
    name of one word, given names neither in capitals nor particles), by polars for the whole
    column, the rest one by one."""
    maybe = names.drop_nulls().unique()
    maybe = maybe.filter(maybe.str.contains(_MAYBE_CHANGED) & ~maybe.str.contains(_NOT_A_NAME))
    if maybe.len() == 0:
        return names
    parts = maybe.str.extract_groups(_LAST_FIRST).struct.unnest()
    family, given = parts.columns
    words = pl.col(given).str.split(" ")
    particles = sorted(PARTICLES)
    simple = (
        pl.DataFrame({"name": maybe})
        .hstack(parts)
        .filter(
            pl.col(family).is_not_null()
            & ~pl.col(family).str.to_lowercase().is_in(particles)
            & ~pl.col(family).str.to_lowercase().str.starts_with("mc")
            & ~pl.col(given).str.contains(r"\p{Lu}\p{Lu}")
            & ~words.list.eval(pl.element().str.to_lowercase().is_in(particles)).list.any()
        )
        .select(
            "name",
            pl.concat_str(
                pl.col(given),
                pl.lit(" "),
                pl.when(pl.col(family).str.contains(r"^\p{Lu}+$"))
                .then(pl.col(family).str.to_titlecase())
                .otherwise(pl.col(family)),
            ).alias("shown"),
        )
    )
    rest = maybe.filter(~maybe.is_in(simple["name"].implode()))
    shown = dict(zip(simple["name"].to_list(), simple["shown"].to_list(), strict=True))
    shown.update({name: display_name(name) for name in rest.to_list()})
    return names.replace(shown)
