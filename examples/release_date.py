"""A small program that dies inside the standard library: the release date in
its settings is written day-first, but parsed year-first.

    errdex run -- python3 examples/release_date.py
"""
import datetime
import json

SETTINGS = '{"name": "errdex", "released": "30/11/2026"}'


def release_date(settings):
    return datetime.datetime.strptime(settings["released"], "%Y-%m-%d").date()


if __name__ == "__main__":
    print("released on", release_date(json.loads(SETTINGS)))
