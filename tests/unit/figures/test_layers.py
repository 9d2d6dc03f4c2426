"""The Home page's layers picture: every rate and reach it prints comes from the catalog."""

from interconnect.catalog import get_catalog
from interconnect.figures.layers import LAYERS, layer_hops, layers_figure
from interconnect.units import format_bandwidth, format_quantity


def _labels(figure) -> list[str]:
    return [annotation.text for annotation in figure.layout.annotations]


def test_the_picture_goes_from_the_gpu_to_another_building_with_catalog_figures():
    catalog = get_catalog()
    hops = layer_hops(catalog, "h100-sxm")
    figure = layers_figure(hops, catalog.gpu("h100-sxm").name)
    labels = _labels(figure)
    for _, title in LAYERS:  # the three layers are named
        assert f"<b>{title}</b>" in labels
    for box in ("H100 SXM5", "NVLink switch", "NIC", "Leaf switch", "Spine switch", "Another building"):
        assert f"<b>{box}</b>" in labels
    for hop in hops:  # each hop's label holds the catalog's own rate and reach, formatted the project's way
        rate = format_bandwidth(hop.link.bandwidth.per_direction())
        reach = format_quantity(hop.reach.quantity)  # the medium's reach where the link is a protocol
        assert any(rate in label and reach in label for label in labels), hop.link.id
    # H100 SXM: NVLink 4 is 450 GB/s per direction (NVIDIA H100 datasheet: 900 GB/s both directions);
    # NDR InfiniBand 400 Gbit/s = 50 GB/s per direction (NVIDIA ConnectX-7 / Quantum-2 datasheets).
    assert "<b>NVLink 4</b><br>450 GB/s per GPU<br>about 50 cm" in labels
    # NDR over a passive copper DAC: up to 3 m (NVIDIA LinkX 100G-PAM4 cable overview); the 3 m is the cable's,
    # not the protocol's (issue: the picture said "InfiniBand NDR, 50 GB/s per GPU, up to 3 m")
    # The picture names the medium in short lines (it must fit beside NVLink's label at 1280 px); the hover text
    # and the tour say it in full.
    assert "<b>InfiniBand NDR</b><br>50 GB/s per GPU<br>copper to 3 m<br>optics to 50 m+" in labels
    ndr = next(hop for hop in layer_hops(get_catalog()) if hop.link.id == "ib-ndr")
    assert ndr.reach_text() == "over a passive copper cable, up to 3 m; optics to 50 m and beyond"


def test_lines_are_as_thick_as_the_rate_per_gpu_and_the_site_link_is_shared():
    catalog = get_catalog()
    hops = layer_hops(catalog, "b200")
    figure = layers_figure(hops, catalog.gpu("b200").name)
    widths = {trace.hovertext.split(":")[0]: trace.line.width for trace in figure.data}
    nvlink, nic = hops[0].link.name, hops[2].link.name
    assert hops[0].link.id == "nvlink5" and widths[nvlink] > 2 * widths[nic]  # the kitchen is wider than the road
    assert hops[-1].gpus_sharing == 0 and "whole site" in hops[-1].rate_text()
    assert figure.data[-1].line.dash == "dot" and widths[hops[-1].link.name] < widths[nic]
