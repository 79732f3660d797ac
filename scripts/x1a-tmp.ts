import { readFileSync } from 'node:fs';
import yaml from 'js-yaml';
import { rowOf } from './fidelity/predict.ts';
const doc = yaml.load(readFileSync('/work/main/bench/data/fidelity-points.yaml', 'utf8')) as { points: any[] };
const p = doc.points.find((x) => x.id === process.argv[2]);
process.stdout.write(JSON.stringify([rowOf(p)]));
