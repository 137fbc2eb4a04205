# SPDX-License-Identifier: GPL-2.0
"""The figures of a bench summary, DIR/fig-*.png, drawn with matplotlib:
the capture share against application load and against the number of
processes (each point a median, its bar the 95 % interval), and with and
without wake-up moderation. Without matplotlib there are none.
"""
import os
import sys

from bench_tables import SETUP_NAMES


def plot(d, plots):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("bench-report: no matplotlib (apt-get install "
              "python3-matplotlib): no plots", file=sys.stderr)
        return []
    made = []
    for name, data in plots.items():
        fig, ax = plt.subplots(figsize=(7, 4.2))
        if name == "wakeup":
            labels = list(data)
            x = range(len(labels))
            for i, pol in enumerate(("default", "N=1")):
                ax.bar([j + 0.4 * i for j in x],
                       [100 * data[s].get(pol, (0, 0))[0] for s in labels],
                       0.4, label="wake-up " + pol)
            ax.set_xticks([j + 0.2 for j in x])
            ax.set_xticklabels([SETUP_NAMES[s].replace(" + ", "\n")
                                for s in labels], fontsize=7)
            ax.set_title("Capture share with and without wake-up moderation")
        else:
            # Each point a median, its bar the 95 % interval.
            xs, series = data
            for s, ys in series.items():
                pts = [(x, 100 * y[0], 100 * (y[0] - y[1]),
                        100 * (y[2] - y[0]))
                       for x, y in zip(xs, ys) if y is not None]
                if pts:
                    ax.errorbar([p[0] for p in pts], [p[1] for p in pts],
                                yerr=[[p[2] for p in pts],
                                      [p[3] for p in pts]],
                                marker="o", capsize=3, label=SETUP_NAMES[s])
            if name == "level":
                ax.set_xlabel("packzip compression level")
                ax.set_title("Capture share against application load (64 B)")
            else:
                ax.set_xlabel("concurrent capture processes")
                ax.set_xticks(xs)
                ax.set_title("Capture share per process (packzip level %s, "
                             "64 B)" % name.split("-", 1)[1])
        ax.set_ylabel("captured / offered (%)")
        ax.set_ylim(0, 100)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
        fig.tight_layout()
        path = os.path.join(d, "fig-%s.png" % name)
        fig.savefig(path, dpi=110)
        plt.close(fig)
        made.append(path)
    return made
