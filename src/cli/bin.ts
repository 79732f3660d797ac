import { launch } from './launch.ts';
import { run } from './main.ts';

launch((argv) => run(argv));
