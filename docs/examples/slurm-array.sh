#!/bin/bash
# belay measure as a Slurm job array: each array task verifies its share of the traces on
# shared storage with a private state directory on the node's local tmpfs, and writes its own
# ledger; a dependent job merges them. `belay measure run` reads SLURM_ARRAY_TASK_ID,
# SLURM_ARRAY_TASK_MIN, SLURM_ARRAY_TASK_STEP and SLURM_ARRAY_TASK_COUNT (any --array range
# and step works, e.g. 0-15 or 1-31:2) and says which shard it took.
#
#   sbatch docs/examples/slurm-array.sh /shared/bundles /shared/ledgers
#
# /shared/bundles holds portable bundles (`belay measure bundle TRACE... --out DIR` on the
# recording machine), or plain traces when the recording state directory is shared too (then
# pass --state /shared/state to every task instead of the private one).
#SBATCH --job-name=belay-measure
#SBATCH --array=0-15
#SBATCH --cpus-per-task=2
#SBATCH --mem=2G
#SBATCH --time=02:00:00
set -euo pipefail
traces=${1:?trace directory}
ledgers=${2:?ledger directory}
mkdir -p "$ledgers"
private=$(mktemp -d /dev/shm/belay-state-XXXXXX)   # the task's private store
trap 'rm -rf "$private"' EXIT
shard=$(( (SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN) / ${SLURM_ARRAY_TASK_STEP:-1} + 1 ))
belay measure run "$traces" --state "$private" --no-ingest -j "${SLURM_CPUS_PER_TASK:-1}" \
  --out "$ledgers/shard-$shard.jsonl"

# The last task to start submits the merge, to run once every task of the array has ended;
# merge refuses overlaps and names any shard that is missing (exit 2).
if [ "$SLURM_ARRAY_TASK_ID" = "$SLURM_ARRAY_TASK_MAX" ]; then
  sbatch --dependency="afterany:${SLURM_ARRAY_JOB_ID}" --job-name=belay-merge --wrap \
    "belay measure merge $ledgers/shard-*.jsonl --out $ledgers/merged.jsonl && \
     belay measure report $ledgers/merged.jsonl --html $ledgers/report.html && \
     belay measure report $ledgers/merged.jsonl"
fi
