"""lichess's player explorer asked through berserk (lichess's own Python client, from PyPI),
pointed at a running `mirror serve`: the client is lichess's, not one written here.

Usage: lichess_client.py EXPLORER_URL  (e.g. http://127.0.0.1:8080/api/v1)
Reads one JSON object per line on stdin, the keyword arguments of berserk's
`opening_explorer.get_player_games` (player, color, position, play, speeds, since, until,
moves, recent_games, ...), and prints each answer as one JSON line, in order.
A request the server refuses prints {"error": STATUS, "body": ...} instead.
"""

import json
import sys

import berserk
import berserk.exceptions


def main() -> None:
    client = berserk.Client(explorer_url=sys.argv[1])
    for line in sys.stdin:
        if not line.strip():
            continue
        kwargs = json.loads(line)
        try:
            answer = client.opening_explorer.get_player_games(**kwargs)
        except berserk.exceptions.ResponseError as e:
            answer = {"error": e.status_code, "body": e.cause}
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    main()
