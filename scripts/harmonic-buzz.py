#!/usr/bin/env python3
"""Band-limited buzz sessions the simulator does not make, and their score (docs/real-breath.md,
"A buzz the whitened view cannot hear"). Needs numpy and scipy.

  scripts/harmonic-buzz.py make DIR     writes the three sets of that section into DIR/shapes,
                                        DIR/matrix and DIR/rates (WAV, 16-bit), each with its truth
                                        (JSON: start, end and rate of every breath)
  opep analyze DIR/shapes/*.wav --format csv --output-dir DIR/shapes   (and so for the others)
  scripts/harmonic-buzz.py score DIR/shapes   the frames from 0.4 s into each breath to 0.4 s before
                                              its end: at the rate, twice it, half it, other, none

Each session: 1.5 s of silence, then eight breaths of 2.5-3.5 s at 12-28 Hz (each drifting ±5 %)
with 1.5-2.5 s between them. A breath is a buzz made of the first 60 harmonics of its rate (the
shape sets their amplitudes and phases), normalised to unit RMS, plus white noise `noise_db` under
it that the rocker modulates `depth` deep, ramped over 0.15 s at both ends; a floor 60 dB down;
then, unless `hp` is 0, a 4th-order Butterworth high-pass at `hp` Hz (a phone's).
"""
import csv, glob, json, os, sys, wave

import numpy as np
import scipy.signal as ss

SHAPES = ['saw', 'saw-random', 'tri', 'flat10', 'fund', 'odd-random', 'pulse']


def amplitudes(shape, count, rng):
    """The harmonics' amplitudes and phases (random phases drawn only for the shapes that have them)."""
    k = np.arange(1, count + 1)
    fixed = {'saw': 1 / k, 'tri': 1 / k**2, 'pulse': np.sinc(0.2 * k)}
    if shape in fixed:
        return fixed[shape], np.zeros(count)
    random = {'saw-random': 1 / k, 'flat10': (k <= 10).astype(float), 'fund': np.where(k == 1, 1.0, 0.3 / k),
              'odd-random': np.where(k % 2 == 1, 1 / k, 0.0)}
    return random[shape], rng.uniform(0, 2 * np.pi, count)


def session(shape, seed, fs=44100, noise_db=-10, depth=0.3, hp=100):
    rng = np.random.default_rng(seed)
    parts, truth, t0 = [np.zeros(int(1.5 * fs))], [], 1.5
    for _ in range(8):
        duration, rate = rng.uniform(2.5, 3.5), rng.uniform(12, 28)
        n = int(duration * fs)
        t = np.arange(n) / fs
        f = rate * (1 + 0.05 * np.sin(2 * np.pi * t / duration))
        phase = 2 * np.pi * np.cumsum(f) / fs
        count = int(min(60, 4000 / rate))
        a, theta = amplitudes(shape, count, rng)
        buzz = sum(a[k - 1] * np.sin(k * phase + theta[k - 1]) for k in range(1, count + 1))
        buzz /= np.sqrt(np.mean(buzz**2))
        ramp = np.minimum(1, np.minimum(t / 0.15, (duration - t) / 0.15))
        noise = rng.standard_normal(n)
        noise /= np.sqrt(np.mean(noise**2))
        rocker = 1 - depth * (0.5 + 0.5 * np.cos(phase))
        parts.append(ramp * (buzz + 10 ** (noise_db / 20) * noise * rocker) * 0.1)
        truth.append((t0, t0 + duration, float(np.mean(f))))
        gap = rng.uniform(1.5, 2.5)
        parts.append(np.zeros(int(gap * fs)))
        t0 += duration + gap
    x = np.concatenate(parts)
    x += 10 ** (-60 / 20) * rng.standard_normal(len(x))
    if hp:
        b, a = ss.butter(4, hp / (fs / 2), 'high')
        x = ss.lfilter(b, a, x)
    return x, fs, truth


def write(path, x, fs, truth):
    with wave.open(path + '.wav', 'wb') as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(fs)
        w.writeframes((np.clip(x, -1, 1) * 32767).astype('<i2').tobytes())
    with open(path + '.json', 'w') as out:
        json.dump(truth, out)


def make(folder):
    for name in ('shapes', 'matrix', 'rates'):
        os.makedirs(os.path.join(folder, name), exist_ok=True)
    for shape in SHAPES:
        for seed in (1, 2):
            for hp in (100, 0):
                write(os.path.join(folder, 'shapes', f'{shape}-s{seed}-hp{hp}'), *session(shape, seed, hp=hp))
    for shape in ('pulse', 'saw', 'fund', 'flat10'):
        for noise_db in (-20, -10, -5):
            for depth in (0.1, 0.3, 0.85):
                write(os.path.join(folder, 'matrix', f'{shape}_n{noise_db}_d{depth}'),
                      *session(shape, 3, noise_db=noise_db, depth=depth))
    for shape in ('pulse', 'saw-random', 'flat10', 'odd-random'):
        for fs in (8000, 16000, 48000):
            for noise_db in (-10, -5):
                write(os.path.join(folder, 'rates', f'{shape}_fs{fs}_n{noise_db}'), *session(shape, 5, fs=fs, noise_db=noise_db))


def score(folder):
    for path in sorted(glob.glob(os.path.join(folder, '*.json'))):
        name = path[:-5]
        truth = json.load(open(path))
        counts = dict(rate=0, twice=0, half=0, other=0, none=0)
        for row in csv.DictReader(open(name + '.csv')):
            t = float(row['time_s'])
            for start, end, rate in truth:
                if start + 0.4 <= t <= end - 0.4:
                    if not row['pitch_hz']:
                        counts['none'] += 1
                    else:
                        p = float(row['pitch_hz'])
                        near = lambda r: abs(p / r - 1) < 0.12
                        counts['rate' if near(rate) else 'twice' if near(2 * rate) else 'half' if near(rate / 2) else 'other'] += 1
        total = max(1, sum(counts.values()))
        print(f'{os.path.basename(name):24s} ' + ' '.join(f'{k} {100 * v / total:5.1f} %' for k, v in counts.items()))


if __name__ == '__main__':
    if len(sys.argv) != 3 or sys.argv[1] not in ('make', 'score'):
        sys.exit(__doc__)
    (make if sys.argv[1] == 'make' else score)(sys.argv[2])
