/**
 * mini_sudoku: solve a 4x4 sudoku (rows, columns and 2x2 boxes hold 1-4 once each). Every puzzle has
 * exactly one solution: cells are blanked one at a time, and a blank that would admit a second solution is
 * put back. Scoring is upstream's: 1.0 for the solution (trailing spaces ignored); otherwise 0.9 x the share
 * of cells right in the first four lines holding exactly four digits; times len(oracle)/len(answer) when the
 * answer is longer than the oracle.
 */
import { pythonLength, pythonRstrip } from 'ngym/python-compat';
import * as z from 'zod';
import type { SeededRandom } from './random.ts';
import { defineTask, metadataField } from './task.ts';

type Board = number[][];
const SIZE = 4;

function canPlace(board: Board, row: number, column: number, value: number): boolean {
  for (let index = 0; index < SIZE; index++) {
    if (board[row]?.[index] === value || board[index]?.[column] === value) return false;
  }
  const boxRow = row - (row % 2);
  const boxColumn = column - (column % 2);
  for (let r = boxRow; r < boxRow + 2; r++) {
    for (let c = boxColumn; c < boxColumn + 2; c++) if (board[r]?.[c] === value) return false;
  }
  return true;
}

function firstEmpty(board: Board): [number, number] | undefined {
  for (let row = 0; row < SIZE; row++) {
    for (let column = 0; column < SIZE; column++) if (board[row]?.[column] === 0) return [row, column];
  }
  return undefined;
}

/** Number of solutions of `board` (0 = blank), counting no further than `limit`. Leaves `board` unchanged. */
function countSolutions(board: Board, limit = 2): number {
  const cell = firstEmpty(board);
  if (cell === undefined) return 1;
  const [row, column] = cell;
  const cells = board[row] as number[];
  let count = 0;
  for (let value = 1; value <= SIZE && count < limit; value++) {
    if (!canPlace(board, row, column, value)) continue;
    cells[column] = value;
    count += countSolutions(board, limit - count);
  }
  cells[column] = 0;
  return count;
}

/** Fills `board` in place with its first solution in row-major, 1..4 order; false when there is none. */
function solve(board: Board): boolean {
  const cell = firstEmpty(board);
  if (cell === undefined) return true;
  const [row, column] = cell;
  const cells = board[row] as number[];
  for (let value = 1; value <= SIZE; value++) {
    if (!canPlace(board, row, column, value)) continue;
    cells[column] = value;
    if (solve(board)) return true;
  }
  cells[column] = 0;
  return false;
}

function solvedBoard(random: SeededRandom): Board {
  for (let attempt = 0; attempt < 100; attempt++) {
    const board: Board = Array.from({ length: SIZE }, () => new Array<number>(SIZE).fill(0));
    // The two diagonal boxes do not constrain each other: fill them freely, then solve the rest.
    for (const corner of [0, 2]) {
      const values = random.shuffle([1, 2, 3, 4]);
      for (let index = 0; index < 4; index++) (board[corner + (index >> 1)] as number[])[corner + (index & 1)] = values[index] as number;
    }
    if (solve(board)) return board;
  }
  throw new Error('could not build a solved mini sudoku board');
}

function blankCells(solution: Board, wanted: number, random: SeededRandom): Board {
  const puzzle = solution.map((row) => [...row]);
  const cells = random.shuffle(Array.from({ length: SIZE * SIZE }, (_, index) => index));
  let removed = 0;
  for (const cell of cells) {
    if (removed === wanted) break;
    const row = puzzle[cell >> 2] as number[];
    const saved = row[cell & 3] as number;
    row[cell & 3] = 0;
    if (countSolutions(puzzle) > 1) row[cell & 3] = saved;
    else removed++;
  }
  return puzzle;
}

function boardText(board: Board): string {
  return board.map((row) => row.map((value) => (value === 0 ? '_' : String(value))).join(' ')).join('\n');
}

const MiniSudokuConfig = z.strictObject({
  /** Fewest blank cells; fewer stay blank when blanking more would break uniqueness. */
  min_empty: z.number().int().min(0).max(12).default(8),
  /** Most blank cells (more than 12 cannot keep a unique solution). */
  max_empty: z.number().int().min(0).max(12).default(12),
});

export const miniSudoku = defineTask({
  name: 'mini_sudoku',
  category: 'games',
  description: '4x4 sudoku with a unique solution.',
  config: MiniSudokuConfig,
  validate: (config) => (config.min_empty > config.max_empty ? 'max_empty must be >= min_empty' : undefined),
  difficulty: (config) => ({ empty: [config.min_empty, config.max_empty] }),
  generate: (random, config) => {
    const solution = solvedBoard(random);
    const puzzle = blankCells(solution, random.int(config.min_empty, config.max_empty), random);
    const numEmpty = puzzle.flat().filter((value) => value === 0).length;
    return {
      question:
        'In 4x4 Mini Sudoku:\n' +
        '- Each row must contain each number from 1-4 exactly once\n' +
        '- Each column must contain each number 1-4 exactly once\n' +
        '- Each 2x2 subgrid must contain each number 1-4 exactly once\n' +
        `Solve this 4x4 Mini Sudoku puzzle:\n${boardText(puzzle)}\n` +
        'Format your response as the puzzle above, with spaces separating each number within a row, and newlines separating rows.\n',
      answer: boardText(solution),
      metadata: { puzzle, solution, num_empty: numEmpty },
    };
  },
  score: (answer, entry) => {
    if (typeof answer !== 'string' || answer.length === 0) return 0;
    const oracle = entry.answer;
    if (typeof oracle !== 'string') throw new TypeError('the entry has no oracle answer');
    const solution = metadataField(entry, 'solution', z.array(z.array(z.number())).min(1));
    const width = (solution[0] as number[]).length;
    const withoutTrailingSpace = (text: string) => text.split('\n').map((line) => pythonRstrip(line)).join('\n');
    let reward: number;
    if (withoutTrailingSpace(answer) === withoutTrailingSpace(oracle)) {
      reward = 1;
    } else {
      let row = 0;
      let matching = 0;
      for (const line of answer.split('\n')) {
        if (row >= solution.length) break;
        const digits = Array.from(line).filter((char) => '123456789'.includes(char)).map(Number);
        if (digits.length !== width) continue;
        const expected = solution[row] as number[];
        for (let index = 0; index < Math.min(expected.length, digits.length); index++) if (expected[index] === digits[index]) matching++;
        row++;
      }
      reward = 0.9 * (matching / (width * width));
    }
    const answerLength = pythonLength(answer);
    const oracleLength = pythonLength(oracle);
    if (answerLength > oracleLength) reward *= oracleLength / answerLength;
    return reward;
  },
});
