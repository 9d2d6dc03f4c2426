"""The seating chart: tensor, pipeline, context, expert and data parallelism seated on the wires they
can afford, the step time they give, and the published runs that check it."""
