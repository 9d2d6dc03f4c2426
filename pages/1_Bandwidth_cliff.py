"""Page: the bandwidth cliff at the edge of the server chassis.

The controls and what they drive are one fragment (:func:`interconnect.topics.cliff.page.cliff_view`), so a
change reruns only that part, with the one further chart chosen (``view=``); the layer tables below
depend on no control.
"""

from interconnect.topics.cliff.inputs import cliff_specs
from interconnect.topics.cliff.page import CLIFF_SHARED, cliff_view, layers_section
from interconnect.ui.chrome import footer, page_setup
from interconnect.ui.state import PageState

page_setup("The bandwidth cliff",
           "How much a GPU can send to the other GPUs of its server, against what it can send anywhere else.")
state = PageState("cliff", cliff_specs(), shared=CLIFF_SHARED)
state.show_warnings()
cliff_view(state)
layers_section()
footer()
