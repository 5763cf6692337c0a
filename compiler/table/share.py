"""Who may see and play at the table: one screen on 127.0.0.1, or a shared table (`--share`)
where each human seat has a join code of its own.

At one screen the page carries the table's token, and every request that changes the game
must send it back (another page open in the same browser cannot read it). At a shared table
there is no such screen: a browser is admitted by a seat's join code alone, a random one made
with `secrets` and compared in constant time with every code (so neither a match nor its seat
shows in how long a refusal takes), and it sees and plays as that seat only. The table also
notes when each seat's browser last asked for the game, to say who is connected.
"""

from __future__ import annotations

import ipaddress
import secrets
import socket
import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from compiler.errors import UsageError

EVERY_SEAT = -1
"""The seat of the one screen's token: it sees as the seat asked and answers for every seat."""

PRESENT_SECONDS = 12.0
"""A seat's browser that asked for the game this recently is connected (it asks every 8 s)."""

CODE_BYTES = 12
"""Random bytes in a join code: 96 bits, 16 characters in a link."""

ANY_ADDRESS = "0.0.0.0"


def compare_digest(given: str, code: str) -> bool:
    """Whether two codes are the same, in constant time (`secrets.compare_digest`)."""
    return secrets.compare_digest(given.encode(), code.encode())


@dataclass(frozen=True)
class Access:
    """The codes that admit a browser: the one screen's token, or each shared seat's code."""

    codes: Mapping[int, str]  # seat (EVERY_SEAT for the one screen) -> its code

    @classmethod
    def one_screen(cls, token: str | None = None) -> Access:
        """The access of a table on one screen: one token for every seat."""
        return cls({EVERY_SEAT: token or secrets.token_urlsafe(24)})

    @classmethod
    def shared(cls, seats: Iterable[int]) -> Access:
        """The access of a shared table: a fresh join code for each of these seats."""
        codes = {seat: secrets.token_urlsafe(CODE_BYTES) for seat in seats}
        return cls(codes)

    @property
    def is_shared(self) -> bool:
        """Whether each seat has a code of its own."""
        return EVERY_SEAT not in self.codes

    def seat_of(self, given: str) -> int | None:
        """The seat a code admits (EVERY_SEAT for the one screen's token); None if it admits
        none. Every code is compared, in constant time, whatever matches."""
        found = None
        for seat, code in self.codes.items():
            if compare_digest(given, code) and found is None:
                found = seat
        return found

    def code_of(self, seat: int) -> str:
        """The code of a seat (or of the one screen)."""
        return self.codes[seat]


class Presence:
    """When each seat's browser last asked for the game, to say who is connected."""

    def __init__(self) -> None:
        self._seen: dict[int, float] = {}
        self._lock = threading.Lock()

    def seen(self, seat: int) -> None:
        """The seat's browser asked for the game now."""
        with self._lock:
            self._seen[seat] = time.monotonic()

    def present(self) -> list[int]:
        """The seats whose browsers asked for the game lately, in seat order."""
        now = time.monotonic()
        with self._lock:
            return sorted(s for s, at in self._seen.items() if now - at <= PRESENT_SECONDS)


def share_address(given: str) -> str:
    """The IPv4 address `--share` listens on; UsageError for anything else."""
    try:
        address = ipaddress.ip_address(given)
    except ValueError:
        raise UsageError(
            f"--share {given}: not an IPv4 address (as 0.0.0.0 or 192.168.1.20)"
        ) from None
    if address.version != 4:
        raise UsageError(f"--share {given}: the table listens on an IPv4 address only")
    return str(address)


def names_of(address: str) -> list[str]:
    """The names a browser may reach an address by: the address itself, and for every
    address of the machine (0.0.0.0) its name and the address its network route leaves by."""
    if address != ANY_ADDRESS:
        return [address]
    names = [socket.gethostname()]
    route = _route_address()
    return [route, *names] if route else names


def _route_address() -> str | None:
    """The machine's address on its network: a UDP socket pointed at a documentation address
    (connecting one sends nothing) says which address it would leave from."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("192.0.2.1", 9))
        found = str(probe.getsockname()[0])
    except OSError:
        return None
    finally:
        probe.close()
    return found if found != ANY_ADDRESS else None
