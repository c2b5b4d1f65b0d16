"""make_batch.py N FILE: N multitraces of the MQTT fixture's model as JSON Lines (one of ten
shapes per line, deterministic), about one in five failing, for the large-report test."""
import json
import sys

SHAPES = [
    # Pass: example 1.
    {"clt1": ["clt1!begin", "clt1!pub", "clt1!end"], "brok": ["brok?begin", "brok?pub", "brok?end"], "clt2": []},
    # Pass: subscribed, one forward.
    {"clt1": ["clt1!begin", "clt1!pub", "clt1!end"], "brok": ["brok?begin", "brok?sub", "brok?pub", "brok!pub", "brok?end"], "clt2": ["clt2!sub", "clt2?pub"]},
    # WeakPass: logs stopped early.
    {"clt1": ["clt1!begin", "clt1!pub"], "brok": ["brok?begin"], "clt2": []},
    {"clt1": ["clt1!begin"], "brok": [], "clt2": []},
    # Pass: two forwards.
    {"clt1": ["clt1!begin", "clt1!pub", "clt1!pub", "clt1!end"], "brok": ["brok?begin", "brok?sub", "brok?pub", "brok!pub", "brok?pub", "brok!pub", "brok?end"], "clt2": ["clt2!sub", "clt2?pub", "clt2?pub"]},
    {"clt1": ["clt1!begin", "clt1!end"], "brok": ["brok?begin", "brok?end"], "clt2": []},
    {"clt1": ["clt1!begin", "clt1!pub", "clt1!end"], "brok": ["brok?begin", "brok?pub"], "clt2": []},
    {"clt1": ["clt1!begin", "clt1!pub"], "brok": ["brok?begin", "brok?pub", "brok?pub"], "clt2": []},
    # Fail: example 2 (CentralError) and a LocalError.
    {"clt1": ["clt1!begin", "clt1!pub", "clt1!end"], "brok": ["brok?begin", "brok?pub", "brok?end"], "clt2": ["clt2!sub"]},
    {"clt1": ["clt1!begin"], "brok": ["brok?pub"], "clt2": []},
]


def main():
    n, path = int(sys.argv[1]), sys.argv[2]
    with open(path, "w") as f:
        for i in range(n):
            # A fixed pseudo-random choice (multiplicative hashing), so reruns are identical.
            shape = SHAPES[(i * 2654435761 >> 7) % len(SHAPES)]
            f.write(json.dumps({"id": f"run-{i:06d}", "traces": shape}) + "\n")


if __name__ == "__main__":
    main()
