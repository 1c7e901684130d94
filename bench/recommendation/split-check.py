"""Cross-check of protocol.js: python_stratified_split(ratio=0.75, filter_by="item", seed) as in
recommenders-team/recommenders (python_splitters.py + split_utils.split_pandas_data_with_ratios),
with numpy/pandas. Prints the size and a digest of the train rows, for `node protocol-check.js`.
Usage: python3 split-check.py [ML100K_DIR] [seed]"""
import hashlib
import os
import sys

import numpy as np
import pandas as pd

data_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../shared/datasets/movielens-100k")
seed = int(sys.argv[2]) if len(sys.argv) > 2 else 42
df = pd.read_csv(f"{data_dir}/u.data", sep="\t", names=["userID", "itemID", "rating", "timestamp"])
df["row"] = np.arange(len(df))


def split_pandas_data_with_ratios(data, ratios, seed=42, shuffle=False):
    split_index = np.cumsum(ratios).tolist()[:-1]
    if shuffle:
        data = data.sample(frac=1, random_state=seed)
    # np.split(data, cuts) in the original; row slices are the same and work with numpy 2.
    cuts = [0] + [round(x * len(data)) for x in split_index] + [len(data)]
    splits = [data.iloc[cuts[i] : cuts[i + 1]].copy() for i in range(len(ratios))]
    for i in range(len(ratios)):
        splits[i]["split_index"] = i
    return splits


splits = []
for _, group in df.groupby("itemID"):
    splits.append(pd.concat(split_pandas_data_with_ratios(group, [0.75, 0.25], shuffle=True, seed=seed)))
all_splits = pd.concat(splits)
train = all_splits[all_splits["split_index"] == 0]
rows = sorted(train["row"].tolist())
print(len(rows), hashlib.sha256(",".join(map(str, rows)).encode()).hexdigest())
