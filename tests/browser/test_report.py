"""Browser checks of the report and the diagram (run by tests/browser/run.sh).

Headless Chromium through Selenium: what a person would see, read from the DOM after the page's
script ran, with screenshots saved beside the pages. Prints one line per check and a closing
`N passed, N failed`; exits 1 when a check failed.
"""
import argparse
import json
import os
import sys
import time
import traceback
import xml.etree.ElementTree as ET

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

VERDICTS = ["Pass", "WeakPass", "Fail", "Inconclusive", "Error"]
RESULTS = []


def check(name):
    def wrap(f):
        def run(*a):
            try:
                f(*a)
                RESULTS.append((name, None))
                print(f"ok: {name}")
            except Exception as e:  # noqa: BLE001 - every failure is reported
                RESULTS.append((name, e))
                print(f"FAILED: {name}: {e}")
                traceback.print_exc()
        return run
    return wrap


def browser(width=1280, height=1000):
    opts = webdriver.ChromeOptions()
    opts.binary_location = "/usr/bin/chromium"
    for a in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
              "--hide-scrollbars", f"--window-size={width},{height}", "--force-device-scale-factor=1"]:
        opts.add_argument(a)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=opts)


def open_page(d, path):
    d.get("file://" + os.path.abspath(path))
    WebDriverWait(d, 30).until(lambda d: d.execute_script("return document.body.dataset.ready"))


def full_screenshot(d, path, width=1280):
    height = d.execute_script("return document.documentElement.scrollHeight")
    d.set_window_size(width, min(height + 40, 16000))
    d.save_screenshot(path)


def counts_in_page(d):
    out = {}
    for tr in d.find_elements(By.CSS_SELECTOR, "#mt-counts tr.verdict"):
        out[tr.get_attribute("data-verdict")] = int(
            tr.find_element(By.CSS_SELECTOR, "td.n").text.replace(",", ""))
    for tr in d.find_elements(By.CSS_SELECTOR, "#mt-counts tr.reason"):
        out[tr.get_attribute("data-verdict") + "/" + tr.get_attribute("data-reason")] = int(
            tr.find_element(By.CSS_SELECTOR, "td.n").text.replace(",", ""))
    return {k: v for k, v in out.items() if v}


def click_filter(d, verdict):
    d.find_element(By.CSS_SELECTOR, f'.filters button[data-filter="{verdict}"]').click()
    return d.find_elements(By.CSS_SELECTOR, "#mt-tbody tr")


@check("MQTT report: counts per verdict and reason")
def mqtt_counts(d, args):
    open_page(d, args.report)
    got = counts_in_page(d)
    want = {"Pass": 4, "WeakPass": 2, "Fail": 4, "Fail/CentralError": 1, "Fail/LocalError": 3}
    assert got == want, got
    assert d.find_element(By.ID, "mt-total").get_attribute("data-count") == "10"
    # Options used and timing are shown.
    opts = d.find_element(By.ID, "mt-options").text
    assert "prefix" in opts and "auto" in opts, opts
    assert "median" in d.find_element(By.ID, "mt-timing").text


@check("MQTT report: the table filters by verdict")
def mqtt_filter(d, args):
    open_page(d, args.report)
    assert len(d.find_elements(By.CSS_SELECTOR, "#mt-tbody tr")) == 10
    for verdict, n in [("Fail", 4), ("Pass", 4), ("WeakPass", 2), ("all", 10)]:
        rows = click_filter(d, verdict)
        assert len(rows) == n, (verdict, len(rows))
        if verdict != "all":
            assert all(r.get_attribute("data-verdict") == verdict for r in rows)
    rows = click_filter(d, "Fail")
    names = [r.find_element(By.CSS_SELECTOR, "td.name").text for r in rows]
    assert any(n.endswith("example2.htf") for n in names), names
    # The search box narrows the rows.
    click_filter(d, "all")
    box = d.find_element(By.ID, "mt-search")
    box.send_keys("example2")
    WebDriverWait(d, 5).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#mt-tbody tr")) == 1)
    row = d.find_element(By.CSS_SELECTOR, "#mt-tbody tr")
    assert row.find_element(By.CSS_SELECTOR, "td.name").text.endswith("example2.htf")


@check("MQTT report: example2.htf's blocked action is highlighted where it happens")
def mqtt_blocked(d, args):
    open_page(d, args.report)
    click_filter(d, "Fail")
    # Follow the table's link to the failure in full, as a person would.
    link = [a for a in d.find_elements(By.CSS_SELECTOR, "#mt-tbody td.name a")
            if a.text.endswith("example2.htf")][0]
    link.click()
    art = d.find_element(By.CSS_SELECTOR, 'article.failure[data-trace$="example2.htf"]')
    assert "brok action 2 'brok?pub' is not allowed there" in art.find_element(
        By.CSS_SELECTOR, "p.explanation").text
    blocked = art.find_elements(By.CSS_SELECTOR, ".act.blocked")
    assert len(blocked) == 1, [b.text for b in blocked]
    b = blocked[0]
    lane = b.find_element(By.XPATH, "..")
    assert lane.get_attribute("data-location") == "brok"
    assert b.get_attribute("data-position") == "2" and b.text == "brok?pub", b.text
    assert "brok?sub" in b.get_attribute("title")
    # Highlighted: red border and tinted background, unlike the other actions of the lane.
    border = b.value_of_css_property("border-top-color")
    background = b.value_of_css_property("background-color")
    assert border in ("rgba(207, 34, 46, 1)", "rgb(207, 34, 46)"), border
    others = [x for x in lane.find_elements(By.CSS_SELECTOR, ".act") if x != b]
    assert others and all(x.value_of_css_property("background-color") != background for x in others)
    # What came before it in brok's lane is consumed (green), with the bar after it.
    done = lane.find_elements(By.CSS_SELECTOR, ".act.done")
    assert [x.text for x in done] == ["brok?begin"], [x.text for x in done]
    assert len(lane.find_elements(By.CSS_SELECTOR, ".cut")) == 1
    # On screen after following the link.
    assert d.execute_script(
        "const r = arguments[0].getBoundingClientRect();"
        "return r.top >= 0 && r.bottom <= window.innerHeight && r.width > 0;", b)
    d.save_screenshot(os.path.join(args.out, "mqtt-report-example2.png"))
    art.screenshot(os.path.join(args.out, "mqtt-example2-lanes.png"))
    # The README's picture: the table showing the failures, down to example2's lanes.
    d.set_window_size(1000, 1120)
    d.execute_script("document.getElementById('mt-table').scrollIntoView()")
    d.save_screenshot(os.path.join(args.out, "readme-report.png"))
    full_screenshot(d, os.path.join(args.out, "mqtt-report.png"))


@check("MQTT report: the model's diagram is in the page and the page is self-contained")
def mqtt_diagram_in_page(d, args):
    open_page(d, args.report)
    svg = d.find_element(By.CSS_SELECTOR, "#mt-model svg.mt-diagram")
    labels = sorted(t.text for t in svg.find_elements(By.CSS_SELECTOR, "text.mt-label"))
    assert labels == ["begin", "end", "pub", "pub", "pub", "sub"], labels
    # Nothing was fetched besides the page itself.
    entries = d.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
    assert entries == [], entries


@check("MQTT diagram: well-formed XML, drawn by the browser")
def mqtt_svg(d, args):
    tree = ET.parse(args.diagram)
    root = tree.getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg", root.tag
    ns = {"s": "http://www.w3.org/2000/svg"}
    labels = sorted(t.text for t in root.findall(".//s:text[@class='mt-label']", ns))
    assert labels == ["begin", "end", "pub", "pub", "pub", "sub"], labels
    d.get("file://" + os.path.abspath(args.diagram))
    # Chromium shows an XML parse error page instead of the picture when it is not well formed.
    assert not d.find_elements(By.TAG_NAME, "parsererror")
    size = d.execute_script(
        "const b = document.documentElement.getBBox(); return [b.width, b.height];")
    assert size[0] > 100 and size[1] > 300, size
    d.set_window_size(int(root.get("width")) + 40, int(root.get("height")) + 40)
    d.save_screenshot(os.path.join(args.out, "mqtt-diagram.png"))


@check("100,000 multitraces: the report opens and its table is usable in under 2 s")
def big(d, args):
    size = os.path.getsize(args.big)
    records = [json.loads(line) for line in open(args.big.replace("report-100k.html", "batch-100k.records.jsonl"))]
    assert len(records) == 100_000
    want = {}
    for r in records:
        want[r["verdict"]] = want.get(r["verdict"], 0) + 1
        if r["reason"]:
            want[r["verdict"] + "/" + r["reason"]] = want.get(r["verdict"] + "/" + r["reason"], 0) + 1
    times = []
    for attempt in range(3):
        d.get("about:blank")
        start = time.perf_counter()
        open_page(d, args.big)
        wall = (time.perf_counter() - start) * 1000
        # Time from the start of navigation until the table was rendered (the page records it).
        ready = int(d.execute_script("return document.body.dataset.ready"))
        load = d.execute_script(
            "const t = performance.getEntriesByType('navigation')[0]; return Math.round(t.loadEventEnd);")
        times.append((ready, load, round(wall)))
    print(f"  report of 100,000 multitraces: {size / 1e6:.1f} MB; "
          f"(table ready, load event, wall as seen by the driver) in ms: {times}")
    best_ready = min(t[0] for t in times)
    assert best_ready < 2000, times
    assert max(t[1] for t in times) < 2000, times
    assert counts_in_page(d) == want, (counts_in_page(d), want)
    rows = click_filter(d, "Fail")
    assert len(rows) == 100
    info = d.find_element(By.ID, "mt-pageinfo").text
    assert info.startswith("1–100 of {:,} ".format(want["Fail"])), info
    assert len(d.find_elements(By.CSS_SELECTOR, "article.failure")) == 100
    # The last page.
    start = time.perf_counter()
    d.find_element(By.ID, "mt-next").click()
    assert d.find_element(By.ID, "mt-pageinfo").text.startswith("101–200 ")
    took = (time.perf_counter() - start) * 1000
    print(f"  next page of the failures (a click, as the driver sees it): {took:.0f} ms")
    assert took < 1000, took
    d.execute_script("window.scrollTo(0, 0)")
    d.save_screenshot(os.path.join(args.out, "report-100k.png"))


@check("names outside the BMP: 😀😀beta after 😀😀alpha is shown whole in the table")
def non_bmp(d, args):
    open_page(d, args.non_bmp)
    rows = d.find_elements(By.CSS_SELECTOR, "#mt-tbody tr")
    names = [r.find_element(By.CSS_SELECTOR, "td.name").text for r in rows]
    assert names == args.non_bmp_names, (names, args.non_bmp_names)
    # The title (the full name on hover) agrees with the text shown.
    titles = [r.find_element(By.CSS_SELECTOR, "td.name").get_attribute("title") for r in rows]
    assert titles == args.non_bmp_names, titles
    assert names[1].endswith("/😀😀beta.htf"), names
    d.save_screenshot(os.path.join(args.out, "non-bmp-report.png"))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", required=True)
    p.add_argument("--report", required=True)
    p.add_argument("--diagram", required=True)
    p.add_argument("--big")
    p.add_argument("--non-bmp", required=True, help="a report of traces named outside the BMP")
    p.add_argument("--non-bmp-names", nargs="+", required=True, help="their names, in order")
    args = p.parse_args()
    d = browser()
    try:
        for f in [mqtt_counts, mqtt_filter, mqtt_blocked, mqtt_diagram_in_page, non_bmp]:
            d.set_window_size(1280, 1000)
            f(d, args)
        mqtt_svg(d, args)
        if args.big:
            d.set_window_size(1280, 1000)
            big(d, args)
        else:
            print("skipped: the 100,000-multitrace report (MULTITRACE_BROWSER_BIG=0)")
    finally:
        d.quit()
    failed = [n for n, e in RESULTS if e is not None]
    print(f"screenshots and pages: {args.out}")
    print(f"{len(RESULTS) - len(failed)} passed, {len(failed)} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
