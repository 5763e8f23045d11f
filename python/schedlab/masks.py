"""Masked actions: the flat mask layout and what to do with a choice the mask refuses."""

import numpy as np

INVALID_ACTION_MODES = ("raise", "repair")


def mask_offsets(nvec):
    """Where each dimension's choices start in the flat mask (sb3-contrib's MultiDiscrete
    layout: the dimensions' masks one after another)."""
    return np.concatenate([[0], np.cumsum(nvec)[:-1]]).astype(np.int64)


def checked_action(action, nvec, mask, mode, labels):
    """The action to send to Rust and how many dimensions were repaired.

    A choice outside ``0..nvec`` is always an error. A choice the mask refuses raises
    ``ValueError`` under ``"raise"``; under ``"repair"`` it becomes the allowed choice nearest
    to it (the lower one on a tie), since choices are levels or ordered slots.
    """
    action = np.asarray(action).reshape(-1)
    if action.shape != (len(nvec),):
        raise ValueError(f"an action has {len(nvec)} choices, got shape {np.shape(action)}")
    if not np.issubdtype(action.dtype, np.integer):
        if not np.all(np.equal(np.mod(action, 1), 0)):
            raise ValueError(f"choices must be integers, got {action}")
    action = action.astype(np.int64)
    out_of_range = np.flatnonzero((action < 0) | (action >= nvec))
    if out_of_range.size:
        d = int(out_of_range[0])
        raise ValueError(f"{labels[d]}: choice {action[d]} is not in 0..{nvec[d]}")
    offsets = mask_offsets(nvec)
    refused = np.flatnonzero(~mask[offsets + action])
    if refused.size and mode == "raise":
        d = int(refused[0])
        allowed = np.flatnonzero(mask[offsets[d] : offsets[d] + nvec[d]])
        raise ValueError(
            f"{labels[d]}: choice {action[d]} is masked (allowed: {allowed.tolist()}); "
            "pass invalid_action='repair' to map masked choices to allowed ones"
        )
    for d in refused:
        allowed = np.flatnonzero(mask[offsets[d] : offsets[d] + nvec[d]])
        action[d] = allowed[np.argmin(np.abs(allowed - action[d]))]
    return action, int(refused.size)
