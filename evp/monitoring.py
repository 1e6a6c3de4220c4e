"""Watch a search as it runs, and stop it when the comparison is settled.

:class:`Monitor` reads the rounds of a running search (a :class:`evp.Results`,
an Optuna study, a Ray Tune experiment folder, a CSV that grows, or scores
fed by hand) at every :meth:`Monitor.update` and answers with the ``watch``
analysis (:func:`evp.watching.watch`): each model's sequential band, valid
however often it is read (:func:`evp.sequential_band`), the verdicts between
the models in :func:`evp.compare`'s words, family-wise over the pairs, the
budgets and every look, and whether the budgets named are settled. In
Jupyter, ``display(monitor)`` shows the figure, the verdicts and one
sentence, and every later update redraws them in place.

Two tuners' hooks stop a search once its answer is known:

* :class:`OptunaCallback` — ``study.optimize(objective, callbacks=[...])``;
  it stops the study when the comparison is settled, or when every model has
  run the maximum number of rounds unsettled; with ``model=``, it stops one
  model's own study once that model's part is settled.
* :class:`RayTuneStopper` — ``tune.RunConfig(stop=stopper.stopper,
  callbacks=[stopper.callback])``: the same for a Ray Tune experiment.

The verdicts stay valid whatever stops the search (that is what the
sequential bands buy), so stopping at the first settled look costs nothing in
error, and saves the rounds a fixed budget would have spent. Assumes random
search: the rounds of each model i.i.d., read in the order the trials were
started (a trial's number), not finished.
"""

from __future__ import annotations

import math
import uuid

import numpy as np
import pandas as pd

from evp._validation import ParameterError
from evp.readers import read_results
from evp.results import Results
from evp.watching import Watch, watch

__all__ = ["Monitor", "OptunaCallback", "RayTuneStopper"]


class Monitor:
    """A running comparison of tuned models, read at every :meth:`update`.

    Parameters
    ----------
    source : Results, optuna.study.Study, dict, str or path, optional
        Where the rounds are: read again at every :meth:`update` without an
        argument (by :func:`evp.read_results`, with `read_options`). A dict
        of ``{model: scores}`` (in arrival order) or ``{model: study}`` is
        one model per key. None: rounds are given to :meth:`update`.
    ns : float or sequence of float, default 1
        The budgets the comparison must settle at.
    confidence : float, default 0.8
        The chance that no verdict, between any pair, at any budget, after
        any number of rounds, is wrong.
    max_rounds : int, optional
        The most rounds of each model: it narrows the bands, and reaching it
        unsettled ends the watch (:attr:`exhausted`).
    boundary : str, default "auto"
        The sequential bounds (:func:`evp.sequential_band`): "auto" reads the
        exact intervals at the budgets named when `max_rounds` is given
        (``"exact"``), else the stitched band.
    plan : bool, default False
        At each look, also estimate the further rounds to settle (simulated
        futures: slower).
    read_options
        For :func:`evp.read_results` (``score=``, ``group=``, ``metric=``, …).
    """

    def __init__(self, source=None, ns=(1,), confidence: float = 0.8, *,
                 max_rounds: int | None = None, boundary: str = "auto",
                 plan: bool = False, replications: int = 200, seed=0,
                 **read_options):
        self.source = source
        self.ns = ns
        self.confidence = confidence
        self.max_rounds = max_rounds
        self.boundary = boundary
        self.plan = plan
        self.replications = replications
        self.seed = seed
        self.read_options = read_options
        self.looks = 0
        self._watch: Watch | None = None
        self._display_id: str | None = None
        self._arrival: dict = {}  # each round's place, as first seen
        # Checked now, not at the first look: a bad option is the caller's now.
        watch(Results.from_scores({"a": [0.0, 1.0], "b": [1.0, 0.0]}), ns,
              confidence, max_rounds=max_rounds, boundary=boundary)

    # ------------------------------------------------------------ reading

    def _read(self, source) -> Results:
        if isinstance(source, Results):
            return source
        if isinstance(source, pd.DataFrame) and not self.read_options:
            raise ParameterError("source", "source: a DataFrame needs score= (and "
                                 "group=) to say which columns to read")
        if isinstance(source, dict) and source and all(
                isinstance(v, list | tuple | np.ndarray) for v in source.values()):
            return Results.from_scores({str(k): np.asarray(v, dtype=float)
                                        for k, v in source.items()}).replace(
                ordered=True)  # scores given in the order they arrived
        return read_results(source, **self.read_options)

    def update(self, source=None) -> Watch:
        """Read the rounds so far (from `source`, else the monitor's own), and
        return the look: the :class:`evp.watching.Watch` analysis. In Jupyter,
        a monitor already displayed is redrawn in place."""
        if source is None:
            if self.source is None:
                raise ParameterError("source", "update: give the rounds (Results, "
                                     "a study, a path or {model: scores}), or "
                                     "a source when making the Monitor")
            source = self.source
        results = self._in_arrival_order(self._read(source))
        self._watch = watch(results, self.ns, self.confidence,
                            max_rounds=self.max_rounds, boundary=self.boundary,
                            plan=self.plan, replications=self.replications,
                            seed=self.seed)
        self.looks += 1
        self._redraw()
        return self._watch

    def _in_arrival_order(self, results: Results) -> Results:
        """`results` with each round placed where this monitor first saw it.

        A sequential band reads the first rounds of each epoch, so a round
        seen at one look must keep its place at every later one: a trial that
        finishes after a later-numbered one (parallel workers) joins the end of
        its model's sequence, never the middle of a prefix already read. New
        rounds of one look enter in their trial order. Assumes, as every band
        here does, that when a round finishes does not depend on its score."""
        if results.task is not None or results.runs is not None:
            return results  # refused by the watch, with its reason
        frame = results.frame
        names = (frame[results.group].astype(str).to_numpy()
                 if results.group is not None
                 else np.full(len(frame), results.models[0]))
        if results.order is not None:
            position = pd.to_numeric(frame[results.order], errors="coerce"
                                     ).to_numpy(dtype=float, na_value=np.nan)
        else:
            position = np.arange(len(frame), dtype=float)
        keys = []
        count: dict[str, int] = {}
        for name, value in zip(names, position, strict=True):
            if results.order is not None and np.isfinite(value):
                keys.append((name, float(value)))
            else:  # the k-th row of the model in the file: rows are appended
                count[name] = count.get(name, -1) + 1
                keys.append((name, "row", count[name]))
        new = [i for i in np.argsort(position, kind="stable")
               if keys[i] not in self._arrival]
        for i in new:
            self._arrival[keys[i]] = len(self._arrival)
        column = "arrival"
        while column in frame:
            column = f"_{column}"
        arrived = frame.assign(**{column: [self._arrival[k] for k in keys]})
        told = () if results.knows_order else (
            "the order the trials ran in is not known: rounds are read in the "
            "order this monitor first saw them (give an order column)",)
        return results.replace(frame=arrived, order=column, ordered=True,
                               warnings=(*results.warnings, *told))

    # ------------------------------------------------------------ answers

    @property
    def watch(self) -> Watch:
        """The last look's analysis."""
        if self._watch is None:
            raise ValueError("no look yet: call monitor.update() first")
        return self._watch

    @property
    def settled(self) -> bool:
        """Whether, at every budget named, one model has strong evidence
        against every other (False before the first look)."""
        return self._watch is not None and self._watch.settled

    @property
    def exhausted(self) -> bool:
        """Whether every model has run `max_rounds` rounds unsettled."""
        return self._watch is not None and self._watch.exhausted

    @property
    def done(self) -> bool:
        """Settled, or the maximum reached unsettled: nothing more to wait for."""
        return self.settled or self.exhausted

    @property
    def verdicts(self) -> pd.DataFrame:
        """One row per pair of models and budget: the evidence either way
        (strong, fair, weak, none) and the model it favours."""
        return self.watch.verdicts

    @property
    def sentence(self) -> str:
        return self.watch.sentence if self._watch is not None else (
            "No look yet.")

    def model_done(self, model: str) -> bool:
        """Whether one model's rounds can stop: the comparison is settled, the
        model has run `max_rounds` rounds, or, at every budget named, another
        model has strong evidence against it (it cannot be the best there)."""
        if self._watch is None:
            return False
        look = self._watch
        if look.settled:
            return True
        if model not in look.rounds:
            return False
        if self.max_rounds is not None and look.rounds[model] >= self.max_rounds:
            return True
        verdicts = look.verdicts
        mine = verdicts[((verdicts["a"] == model) | (verdicts["b"] == model))
                        & (verdicts["evidence"] == "strong")
                        & (verdicts["better"] != model)]
        return bool(len(look.ns)) and set(mine["n"]) >= set(look.ns)

    def summary(self) -> str:
        """The look as a terminal prints it."""
        if self._watch is None:
            return "No look yet."
        return "\n".join(self._watch.lines())

    # ------------------------------------------------------------ display

    def __repr__(self) -> str:
        state = ("no look yet" if self._watch is None else
                 f"{self.looks} looks, {self._watch.status}")
        return f"Monitor(ns={self.ns!r}, confidence={self.confidence:g}, {state})"

    def _repr_html_(self) -> str:
        if self._watch is None:
            from evp import _display

            return _display.page("Monitor", ["No look yet: call monitor.update()."])
        return self._watch._repr_html_()

    def _ipython_display_(self):
        """Shown with a display id, so that later updates redraw in place."""
        from IPython.display import HTML, display

        if self._display_id is None:
            self._display_id = uuid.uuid4().hex
        display(HTML(self._repr_html_()), display_id=self._display_id)

    def _redraw(self) -> None:
        if self._display_id is None:
            return
        try:
            from IPython.display import HTML, update_display
        except ImportError:  # displayed once, IPython since gone: nothing to redraw
            return
        update_display(HTML(self._repr_html_()), display_id=self._display_id)


# ------------------------------------------------------------------ Optuna

class OptunaCallback:
    """Stops an Optuna study when its comparison is settled.

    ``study.optimize(objective, callbacks=[evp.monitoring.OptunaCallback(
    ns=[1, 4], max_rounds=100, group="params_model")])``: after every
    finished trial the monitor reads the study (the models named by a
    hyperparameter's column, ``group=``), and the study stops when the
    comparison is settled at the budgets named, or when every model has run
    `max_rounds` rounds unsettled.

    With one study per model, give the monitor all of them (``Monitor({"A":
    study_a, "B": study_b}, …)``) and each study its own callback with
    ``model="A"``: a model's study stops once its part is settled
    (:meth:`Monitor.model_done`).

    A read that fails once every study has a finished trial raises (failed
    trials, say: read_results refuses them until told, ``failed="worst"``
    or ``"drop"`` among the read options), rather than watch silently.

    Parameters
    ----------
    monitor : Monitor, optional
        What to read and how; default a Monitor of the study itself with the
        options below.
    model : str, optional
        Stop only when this model's part is settled (one study per model).
    ns, confidence, max_rounds, read_options
        For the default Monitor.
    """

    def __init__(self, monitor: Monitor | None = None, *, model: str | None = None,
                 ns=(1,), confidence: float = 0.8, max_rounds: int | None = 100,
                 **read_options):
        if monitor is None:
            monitor = Monitor(None, ns, confidence, max_rounds=max_rounds,
                              **read_options)
        self.monitor = monitor
        self.model = model
        self.stopped_at: int | None = None
        self._next_read = 1

    def __call__(self, study, trial) -> None:
        source = self.monitor.source if self.monitor.source is not None else study
        finished = _finished_trials(source)
        if finished < self._next_read:
            return  # no band can have moved since the last look: it says the same
        try:
            look = self.monitor.update(source)
        except ValueError:
            if _every_study_has_trials(source):
                raise  # a read that cannot succeed (failed trials, say): say so
            self._next_read = finished + 1
            return  # a study without a finished trial yet: wait
        self._next_read = finished + _wait(look)
        done = (self.monitor.done if self.model is None
                else self.monitor.model_done(self.model))
        if done:
            self.stopped_at = trial.number
            study.stop()


def _every_study_has_trials(source) -> bool:
    """Whether every study of `source` has a completed trial (a read that
    fails then fails for another reason than having nothing to read yet)."""
    studies = source.values() if isinstance(source, dict) else [source]
    for study in studies:
        get = getattr(study, "get_trials", None)
        if get is None:
            return True
        if not any(t.state.name == "COMPLETE" for t in get(deepcopy=False)):
            return False
    return True


def _finished_trials(source) -> int:
    """The completed trials of an Optuna study, or of a dict of them."""
    studies = source.values() if isinstance(source, dict) else [source]
    count = 0
    for study in studies:
        get = getattr(study, "get_trials", None)
        if get is None:
            return 1 << 62  # not a study: read at every trial
        count += sum(t.state.name == "COMPLETE" for t in get(deepcopy=False))
    return count


# ------------------------------------------------------------------ Ray Tune

class RayTuneStopper:
    """Stops a Ray Tune experiment when its comparison is settled.

    ``stopper = evp.monitoring.RayTuneStopper(metric="accuracy", mode="max",
    group="model", ns=[1, 4], max_rounds=100)``, then
    ``tune.RunConfig(stop=stopper.stopper, callbacks=[stopper.callback])``:
    each finished trial is one round of the model named by its ``config``'s
    `group` key, scored by its last report of `metric`; the experiment stops
    (every trial still running is stopped) once the comparison is settled or
    every model has run `max_rounds` rounds unsettled. Trials that errored, or
    finished without a number for `metric`, are left out and counted: the
    watch says how many beside its verdict.
    """

    def __init__(self, *, metric: str, mode: str = "max", group: str = "model",
                 ns=(1,), confidence: float = 0.8, max_rounds: int | None = 100,
                 monitor: Monitor | None = None):
        if mode not in ("max", "min"):
            raise ParameterError("mode", f"mode must be 'max' or 'min', got "
                                 f"{mode!r}")
        self.metric, self.mode, self.group = metric, mode, group
        self.left_out = 0  # errored trials, and trials without a number
        self.monitor = monitor or Monitor(None, ns, confidence,
                                          max_rounds=max_rounds)
        self.rows: list[dict] = []
        self._next_read = 1
        self.callback, self.stopper = _ray_hooks(self)

    def results(self) -> Results:
        """The finished trials so far, one row each, in the order they started."""
        frame = pd.DataFrame(self.rows).sort_values("trial", kind="stable")
        warned = (() if not self.left_out else (
            f"{self.left_out} trial(s) errored or reported no number for "
            f"{self.metric!r} and are left out: the verdicts assume they failed "
            "for reasons unrelated to their configuration",))
        return Results(frame, score=self.metric, group="model",
                       minimize=self.mode == "min", order="trial",
                       direction=f"given: mode={self.mode!r}", warnings=warned,
                       source="Ray Tune experiment", tuner="ray tune")

    def _finished(self, trial, position: int) -> None:
        """One finished trial: a round of its model, at its place among the
        trials as they were created (started)."""
        result = trial.last_result or {}
        value = result.get(self.metric)
        config = trial.config or {}
        if self.group not in config:
            return  # not a round of any model compared
        try:
            value = float(value)
        except (TypeError, ValueError):
            value = math.nan
        if not math.isfinite(value):
            self.left_out += 1
            return
        self.rows.append({"trial": position, "model": str(config[self.group]),
                          self.metric: value})
        if len(self.rows) < self._next_read:
            return  # no band can have moved since the last look
        try:
            look = self.monitor.update(self.results())
        except ValueError:
            self._next_read = len(self.rows) + 1
            return  # a model with too few rounds to read yet: wait
        self._next_read = len(self.rows) + _wait(look)

    def _errored(self) -> None:
        self.left_out += 1


def _position(trials, trial) -> int:
    """A trial's place among the experiment's trials, in the order Ray Tune
    created them."""
    for i, other in enumerate(trials):
        if other is trial:
            return i
    return len(trials)


def _ray_hooks(owner: RayTuneStopper):
    """A ray.tune Callback that feeds `owner` each finished trial, and a
    Stopper that reads its verdict."""
    from evp._optional import import_optional_dependency

    tune = import_optional_dependency("ray.tune")

    class _Feed(tune.Callback):
        def on_trial_complete(self, iteration, trials, trial, **info):
            owner._finished(trial, _position(trials, trial))

        def on_trial_error(self, iteration, trials, trial, **info):
            owner._errored()

    class _Stop(tune.Stopper):
        def __call__(self, trial_id, result):
            return False  # a trial runs to its end: it is one round

        def stop_all(self):
            return owner.monitor.done

    return _Feed(), _Stop()


def _wait(look: Watch) -> int:
    """The further finished trials before a new look can say something new
    (at least one)."""
    wait = look.rounds_to_next_epoch()
    return 1 if not math.isfinite(wait) else max(int(wait), 1)
