#!/usr/bin/env python3
"""Independent check of mirror's drill schedule: py-fsrs (the reference implementation of
FSRS from PyPI, `fsrs`) reviews cards with the given grades on the given days, with no
learning or relearning steps and no fuzzing (a card's interval in whole days, as mirror
schedules), at the default parameters and a desired retention of RETENTION.

Usage: fsrs_schedule.py RETENTION < SEQUENCES.json, where SEQUENCES is a list of cards, each a list
of [grade 1-4, days since the previous answer (ignored for the first)].
Prints, per card and answer, [stability, difficulty, interval in days].
"""
import json
import sys
from datetime import datetime, timedelta, timezone

from fsrs import Card, Rating, Scheduler


def main():
    retention = float(sys.argv[1])
    scheduler = Scheduler(
        desired_retention=retention,
        learning_steps=(),
        relearning_steps=(),
        enable_fuzzing=False,
    )
    start = datetime(2026, 1, 1, 12, 0, tzinfo=timezone.utc)
    out = []
    for answers in json.load(sys.stdin):
        card = Card()
        now = start
        states = []
        for i, (grade, days) in enumerate(answers):
            if i > 0:
                now = now + timedelta(days=days)
            card, _ = scheduler.review_card(card, Rating(grade), now)
            interval = (card.due - now).days
            states.append([card.stability, card.difficulty, interval])
        out.append(states)
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
