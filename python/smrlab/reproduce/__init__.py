"""The reproduction scorecard: each paper's claims (``claims``, from experiments/claims/), judged
on the results of the experiments behind them (``verdict``), run and gathered (``scorecard``),
on smrlab's recipes or the papers' real traces (``realtraces``), and shown or written
(``output``). ``smrlab reproduce`` is its command. Not here: the experiments themselves
(``smrlab.experiment``), the models.
"""
