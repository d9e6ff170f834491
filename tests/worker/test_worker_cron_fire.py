"""cron_fire.DueJobs over fakes of hermes' functions and a real tick lock: due jobs
are claimed under the lock, each once, skipping those running here or claimed by
another; a held lock gives None; a fired job's outcome is read from its own
attempt in hermes' execution ledger."""

from __future__ import annotations

import fcntl
from pathlib import Path
from typing import Any

from hermes_stdio.worker.cron_fire import DueJobs
from hermes_stdio.worker.cronjobs import RanNow


class Hermes:
    """Fakes of hermes' cron functions, recording what the lock was during each."""

    def __init__(self, lock: Path, due: list[dict[str, Any]], lost: set[str] = frozenset()):
        self.lock, self.due, self.lost = lock, due, lost
        self.claimed: list[str] = []
        self.locked_while: list[bool] = []
        self.ledger: list[dict[str, Any]] = []
        self.ran: list[dict[str, Any]] = []
        self.outcome: tuple[str, str | None] = ("completed", None)

    def _locked(self) -> bool:
        with open(self.lock, "w") as f:
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return True
            return False

    def get_due(self) -> list[dict[str, Any]]:
        self.locked_while.append(self._locked())
        return self.due

    def claim(self, job_id: str) -> bool:
        self.locked_while.append(self._locked())
        self.claimed.append(job_id)
        return job_id not in self.lost

    def record(self, job_id: str, *, source: str) -> dict[str, Any]:
        entry = {"id": f"x{len(self.ledger)}", "job_id": job_id, "source": source}
        self.ledger.append(entry)
        return entry

    def run_one(self, job: dict[str, Any]) -> bool:
        self.ran.append(job)
        entry = next(e for e in self.ledger if e["id"] == job["execution_id"])
        entry["status"], entry["error"] = self.outcome
        self.record(job["id"], source="other")  # a later attempt: not this one
        return True

    def records(self, *, job_id: str, limit: int) -> list[dict[str, Any]]:
        return [e for e in reversed(self.ledger) if e["job_id"] == job_id][:limit]

    def due_jobs(self, running: frozenset[str] = frozenset()) -> DueJobs:
        return DueJobs(
            self.lock,
            due=self.get_due,
            claim=self.claim,
            running=lambda: running,
            run_one=self.run_one,
            record=self.record,
            records=self.records,
        )


def test_due_jobs_are_claimed_under_the_tick_lock_skipping_busy_running_and_lost_ones(
    tmp_path: Path,
) -> None:
    lock = tmp_path / "cron" / ".tick.lock"
    jobs = [{"id": i} for i in ("a", "busy", "hermes", "lost", "b")] + [{"name": "no id"}]
    hermes = Hermes(lock, jobs, lost={"lost"})
    won = hermes.due_jobs(running=frozenset({"hermes"})).claim({"busy"})
    assert [j["id"] for j in won or []] == ["a", "b"]
    assert hermes.claimed == ["a", "lost", "b"]
    assert hermes.locked_while and all(hermes.locked_while)
    assert not hermes._locked()  # released once claimed


def test_a_tick_lock_another_holds_claims_nothing(tmp_path: Path) -> None:
    lock = tmp_path / ".tick.lock"
    hermes = Hermes(lock, [{"id": "a"}])
    with open(lock, "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        assert hermes.due_jobs().claim(set()) is None
    assert hermes.claimed == [] and hermes.locked_while == []


def test_a_fired_job_is_judged_by_its_own_attempt_in_the_ledger(tmp_path: Path) -> None:
    hermes = Hermes(tmp_path / ".tick.lock", [])
    due = hermes.due_jobs()
    assert due.fire({"id": "a", "prompt": "p"}) == RanNow(True, True, None)
    assert hermes.ran[0]["execution_id"] == "x0" and hermes.ran[0]["prompt"] == "p"
    assert hermes.ledger[0]["source"] == "hermes-stdio"
    hermes.outcome = ("failed", "model down")
    assert due.fire({"id": "a"}) == RanNow(True, False, "model down")
    hermes.outcome = ("running", None)  # hermes never finished it
    assert due.fire({"id": "a"}) == RanNow(True, False, "the cron job failed")
