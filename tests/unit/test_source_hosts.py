"""Every source address is https and on a host someone has reviewed.

The catalog cites a source for every figure. A reader should be able to open each address and trust
where it leads: the maker, a standards body, the paper, the authors' own repository, or a named,
careful secondary source. Copies of a maker's page on unrelated hosts, and plain http, are not.

This test gathers every URL in the data files (``interconnect/data/**``), every source of the catalog
as loaded, and every URL in the package's Python and JavaScript text, and fails on a non-https
address or on a host that is not in ``ALLOWED_HOSTS`` below. A subdomain of a listed host is allowed
(``docs.nvidia.com`` under ``nvidia.com``). To add a host, review what it is and add one line.

Hosts listed as ``SECONDARY`` are not the origin of the figures they carry (compilations, news,
blogs, archives, personal measurements); a source on such a host must not claim ``kind = "primary"``.
"""

from __future__ import annotations

import re
import urllib.parse
from pathlib import Path

import pytest

from interconnect.catalog import load_catalog

PACKAGE = Path(__file__).resolve().parents[2] / "interconnect"
ROOT = PACKAGE.parent
DATA = PACKAGE / "data"

PRIMARY = "primary"
SECONDARY = "secondary"

#: host -> (role, what it is). Reviewed by hand; one line per host.
ALLOWED_HOSTS: dict[str, tuple[str, str]] = {
    # Makers
    "nvidia.com": (PRIMARY, "NVIDIA, the maker (pages, docs, PDFs, developer blog, newsroom)"),
    "amd.com": (PRIMARY, "AMD, the maker (product pages, ROCm docs)"),
    "intel.com": (PRIMARY, "Intel, the maker"),
    "habana.ai": (PRIMARY, "Habana Labs (Intel), the maker's Gaudi docs"),
    "juniper.net": (PRIMARY, "Juniper, the maker's hardware docs"),
    "hnkoptic.com": (PRIMARY, "HNK Optic, the fibre maker's data sheet"),
    "t8.ru": (PRIMARY, "T8, a DWDM equipment maker, about its own demonstration"),
    "aws.amazon.com": (PRIMARY, "AWS, the operator's own documentation"),
    "redhat.com": (SECONDARY, "Red Hat: OS documentation and a maintainer's pages, not the IBTA/IEEE texts"),
    # Standards bodies, regulators, reference data
    "oiforum.com": (PRIMARY, "OIF, the standards body for 400ZR/800ZR"),
    "ualinkconsortium.org": (PRIMARY, "UALink Consortium, the standards body"),
    "rfc-editor.org": (PRIMARY, "RFC Editor, the IETF's publisher"),
    "fcc.gov": (PRIMARY, "US Federal Communications Commission, the regulator"),
    "nist.gov": (PRIMARY, "NIST, physical constants and SI prefixes"),
    "bipm.org": (PRIMARY, "BIPM, the SI brochure"),
    "nasa.gov": (PRIMARY, "NASA NSSDC planetary fact sheets"),
    "top500.org": (PRIMARY, "TOP500, the list's own site"),
    "tiafotc.org": (SECONDARY, "TIA Fiber Optics Technology Consortium: summaries of IEEE 802.3 standards"),
    # Papers and the authors' own pages and repositories
    "arxiv.org": (PRIMARY, "arXiv, the papers"),
    "doi.org": (PRIMARY, "DOI resolver, the papers"),
    "acm.org": (PRIMARY, "ACM Digital Library, the papers"),
    "ennanzhai.github.io": (PRIMARY, "Ennan Zhai, co-author of Alibaba HPN (SIGCOMM 2024), his copy of the paper"),
    "engineering.fb.com": (PRIMARY, "Meta's engineering blog, about its own clusters"),
    "research.perplexity.ai": (PRIMARY, "Perplexity's research blog, about its own weight-transfer system"),
    "jax-ml.github.io": (PRIMARY, "Google DeepMind authors' scaling book"),
    "bigscience.notion.site": (PRIMARY, "BigScience, the authors' own training log"),
    "github.com": (PRIMARY, "GitHub: makers' and authors' repositories, issues and commits (NCCL, Linux, ...)"),
    "githubusercontent.com": (PRIMARY, "GitHub raw files (MLCommons results, as submitted)"),
    "huggingface.co": (SECONDARY, "Hugging Face: model configs (authors') and the Ultra-Scale Playbook"),
    # Careful secondary sources, news and archives
    "wikipedia.org": (SECONDARY, "Wikipedia"),
    "glennklockwood.com": (SECONDARY, "Glenn Lockwood's notes; cite the makers' datasheets"),
    "thundergolfer.com": (SECONDARY, "Modal engineer's blog: GPU memory as NVML reports it"),
    "theregister.com": (SECONDARY, "The Register, news"),
    "scientificcomputing.com": (SECONDARY, "Scientific Computing, trade news carrying an IBTA release"),
    "convergedigest.com": (SECONDARY, "Converge Digest, trade news carrying an OIF release"),
    "tldp.org": (SECONDARY, "The Linux Documentation Project, the HOWTOs' publisher"),
    "fapo.com": (SECONDARY, "Warp Nine Engineering's IEEE 1284 tutorial"),
    "alibabacloud.com": (SECONDARY, "Alibaba Cloud docs describing NVIDIA's V100 topology"),
    "seabird.com": (SECONDARY, "Sea-Bird Scientific FAQ (an instrument maker) on RS-232 cable length"),
    "stackexchange.com": (SECONDARY, "Electrical Engineering Stack Exchange answer"),
    "textfiles.com": (SECONDARY, "textfiles.com archive of a period shareware text file"),
    "manualarchiveguide.com": (SECONDARY, "manual archive: copy of a printer maker's manual no longer published"),
    "connectworld.net": (SECONDARY, "cable vendor's IEEE 1284 overview"),
    "flexoptix.net": (SECONDARY, "optics vendor's 400G overview"),
    "nand-research.com": (SECONDARY, "analyst note on the UALink 1.0 specification"),
    "infiniband.jp": (SECONDARY, "Japanese InfiniBand overview by generation"),
    "mapyourtech.com": (SECONDARY, "optical networking blog: fibre latency per km"),
    "technologyuk.net": (SECONDARY, "teaching site: velocity of propagation"),
    "solveforce.com": (SECONDARY, "telecom reseller's 802.11ax page"),
    "techterms.com": (SECONDARY, "computing glossary: Wi-Fi 6"),
    "setloop.io": (SECONDARY, "blog: GB200 NVL72 rack anatomy"),
    "locsic.com": (SECONDARY, "blog: NVL72 to NVL576"),
    "drpranayjha.com": (SECONDARY, "blog: NVLink and NVSwitch scale-up"),
    "regantih.github.io": (SECONDARY, "online book chapter on the NVL72 rack"),
    "freeholdcomputer.com": (SECONDARY, "personal account of an INTERLNK tape backup (a measurement)"),
    "acomputerscientistlearnsaws.blogspot.com": (SECONDARY, "personal blog: AWS inter-region pings (a measurement)"),
    "xkyle.com": (SECONDARY, "personal blog: AWS zone latency (a measurement)"),
    "blog.wesleyac.com": (SECONDARY, "personal blog: ping against light speed"),
}

#: Addresses in code that are not sources: the SVG namespace name (http by its specification) and
#: placeholders in docstrings.
NOT_SOURCES = {"http://www.w3.org/2000/svg"}
PLACEHOLDER_HOSTS = {"localhost", "host", "cdn"}

URL = re.compile(r"https?://[^\s\"'<>`)\]\\,]+")
DATA_SUFFIXES = {".toml", ".csv", ".txt", ".json"}
CODE_SUFFIXES = {".py", ".js"}


def allowed_entry(host: str) -> tuple[str, str] | None:
    """The allowlist entry covering ``host`` (itself or a parent domain), or ``None``."""
    parts = host.lower().split(".")
    for start in range(len(parts) - 1):
        entry = ALLOWED_HOSTS.get(".".join(parts[start:]))
        if entry is not None:
            return entry
    return None


def problem(url: str) -> str | None:
    """Why ``url`` may not be a source address, or ``None`` if it may."""
    split = urllib.parse.urlsplit(url)
    if split.scheme != "https":
        return "is not https"
    if not split.hostname or allowed_entry(split.hostname) is None:
        return f"host {split.hostname!r} is not in the reviewed allowlist"
    return None


def _urls_in(paths) -> list[tuple[str, str]]:
    found = []
    for path in paths:
        for url in URL.findall(path.read_text(encoding="utf-8")):
            found.append((str(path.relative_to(ROOT)), url.rstrip(".;:")))
    return found


def data_urls() -> list[tuple[str, str]]:
    return _urls_in(sorted(p for p in DATA.rglob("*") if p.suffix in DATA_SUFFIXES))


def code_urls() -> list[tuple[str, str]]:
    paths = [p for p in PACKAGE.rglob("*") if p.suffix in CODE_SUFFIXES]
    paths += [p for p in (ROOT / "pages").glob("*.py")] + [ROOT / "app.py"]
    found = []
    for where, url in _urls_in(sorted(p for p in paths if p.is_file())):
        host = urllib.parse.urlsplit(url).hostname or ""
        if url in NOT_SOURCES or host in PLACEHOLDER_HOSTS:
            continue
        found.append((where, url))
    return found


def test_the_scan_finds_the_data_urls():
    urls = [url for _, url in data_urls()]
    assert len(urls) > 150
    assert "https://www.nvidia.com/en-us/data-center/nvlink/" in urls


def test_every_data_url_is_https_on_a_reviewed_host():
    bad = [f"{where}: {url} {problem(url)}" for where, url in data_urls() if problem(url)]
    assert not bad, "\n".join(bad)


def test_every_catalog_source_is_https_on_a_reviewed_host():
    catalog = load_catalog()
    bad = [f"{source.id}: {source.url} {problem(source.url)}"
           for source in catalog.sources.values() if problem(source.url)]
    assert not bad, "\n".join(bad)


def test_every_url_in_the_code_is_https_on_a_reviewed_host():
    bad = [f"{where}: {url} {problem(url)}" for where, url in code_urls() if problem(url)]
    assert not bad, "\n".join(bad)


def test_a_source_on_a_secondary_host_does_not_claim_to_be_primary():
    catalog = load_catalog()
    bad = []
    for source in catalog.sources.values():
        entry = allowed_entry(urllib.parse.urlsplit(source.url).hostname or "")
        if entry and entry[0] == SECONDARY and source.kind == "primary":
            bad.append(f"{source.id}: {source.url} is on a secondary host ({entry[1]}) but kind = 'primary'")
    assert not bad, "\n".join(bad)


def test_every_allowed_host_is_still_used():
    # A host nobody cites any more leaves the list, so the list stays a review of what is cited.
    hosts = {urllib.parse.urlsplit(url).hostname for _, url in data_urls() + code_urls()}
    hosts |= {urllib.parse.urlsplit(s.url).hostname for s in load_catalog().sources.values()}
    unused = [name for name in ALLOWED_HOSTS
              if not any(h == name or h.endswith("." + name) for h in hosts if h)]
    assert not unused, unused


@pytest.mark.parametrize("url, reason", [
    ("http://www.nvidia.com/en-us/data-center/nvlink/", "is not https"),
    ("https://banglanewzz.com/index-318.html", "not in the reviewed allowlist"),
    ("https://nvidia.com.example.org/h100", "not in the reviewed allowlist"),
    ("https://notnvidia.com/h100", "not in the reviewed allowlist"),
])
def test_the_check_rejects_http_and_unknown_hosts(url, reason):
    assert reason in (problem(url) or "")


@pytest.mark.parametrize("url", [
    "https://docs.nvidia.com/networking/display/QM97X0PUB/Interfaces",
    "https://arxiv.org/abs/2407.21783",
])
def test_the_check_accepts_reviewed_hosts_and_their_subdomains(url):
    assert problem(url) is None
