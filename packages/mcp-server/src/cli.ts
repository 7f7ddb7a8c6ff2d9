#!/usr/bin/env node
import { runStdioServer } from './stdio.js';

await runStdioServer();
