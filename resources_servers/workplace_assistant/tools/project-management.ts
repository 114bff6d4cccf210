/** Project management tools (upstream `ProjectManagementTool`): read, search, create, delete and update tasks. */
import {
  pythonContains,
  PythonError,
  pythonLower,
  pythonTruthy,
  pythonTypeName,
  type PythonValue,
} from 'ngym/python-compat';
import type { Office } from '../database/office.ts';
import { filterContains, nextId, zfill } from './pandas.ts';
import { deleteRecord, type RecordKind, recordField, updateRecord } from './records.ts';
import { type Arguments, type OfficeTool, officeTool } from './tool.ts';

const LISTS = ['Backlog', 'In Progress', 'In Review', 'Completed'];
const BOARDS = ['Back end', 'Front end', 'Design'];
const INVALID_LIST = "List not valid. Please choose from: 'Backlog', 'In Progress', 'In Review', 'Completed'.";
const INVALID_BOARD = "Board not valid. Please choose from: 'Back end', 'Front end', 'Design'.";
const INVALID_ASSIGNEE = 'Assignee email not valid. Please choose from the list of team members.';
/** Upstream's `re.match(r"^[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\.[a-zA-Z]{2,}$", email)` (Python's `$` allows a final newline). */
const EMAIL_FORMAT = /^[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\.[a-zA-Z]{2,}\n?$/;

const TASKS: RecordKind = { table: 'projectTasks', idColumn: 'task_id', noun: 'Task' };
const taskId = { type: 'string', description: '8-digit ID of the task' } as const;
const taskName = { type: 'string', description: 'Name of the task' } as const;
const assignee = { type: 'string', description: 'Email address of the person assigned to the task' } as const;
const dueDate = { type: 'string', description: 'Due date of the task in YYYY-MM-DD format' } as const;

/** `new_value in table["assigned_to_email"].str.lower().values`: is the address on the team? */
function isTeamMember(office: Office, address: string): boolean {
  return office.projectTasks.values('assigned_to_email').some((cell) => typeof cell === 'string' && cell.toLowerCase() === address);
}

function searchTasks(office: Office, args: Arguments<'task_name' | 'assigned_to_email' | 'list_name' | 'due_date' | 'board'>): PythonValue {
  const { task_name, assigned_to_email, list_name, due_date, board } = args;
  if (![task_name, assigned_to_email, list_name, due_date, board].some(pythonTruthy)) return 'No search parameters provided.';
  if (pythonTruthy(assigned_to_email)) {
    if (typeof assigned_to_email !== 'string') {
      throw new PythonError('TypeError', `expected string or bytes-like object, got '${pythonTypeName(assigned_to_email)}'`);
    }
    if (!EMAIL_FORMAT.test(assigned_to_email)) return 'Invalid email format for assigned_to_email.';
  }
  let tasks = office.projectTasks;
  if (pythonTruthy(task_name)) tasks = filterContains(tasks, 'task_name', task_name);
  if (pythonTruthy(assigned_to_email)) {
    const wanted = (assigned_to_email as string).toLowerCase();
    const column = tasks.columnIndex('assigned_to_email');
    tasks = tasks.filter((row) => typeof row[column] === 'string' && (row[column] as string).toLowerCase() === wanted);
  }
  if (pythonTruthy(list_name)) tasks = filterContains(tasks, 'list_name', list_name);
  if (pythonTruthy(due_date)) tasks = filterContains(tasks, 'due_date', due_date);
  if (pythonTruthy(board)) tasks = filterContains(tasks, 'board', board);
  return tasks.records();
}

export const projectManagementTools: OfficeTool[] = [
  officeTool({
    name: 'project_management_get_task_information_by_id',
    pythonMethod: 'ProjectManagementTool.get_task_information_by_id',
    description: 'Returns the task information for a given ID.',
    parameters: {
      task_id: taskId,
      field: {
        type: 'string',
        description: "Field to return. Available fields are: 'task_id', 'task_name', 'assigned_to_email', 'list_name', 'due_date', 'board'",
      },
    },
    required: ['task_id', 'field'],
    run: ({ task_id, field }, office) => {
      if (!pythonTruthy(task_id)) return 'Task ID not provided.';
      if (!pythonTruthy(field)) return 'Field not provided.';
      return recordField(office, TASKS, task_id, field, () => 'Field not found.');
    },
  }),
  officeTool({
    name: 'project_management_search_tasks',
    pythonMethod: 'ProjectManagementTool.search_tasks',
    description: 'Searches for tasks based on the given parameters.',
    parameters: {
      task_name: taskName,
      assigned_to_email: assignee,
      list_name: { type: 'string', description: 'Name of the list the task belongs to' },
      due_date: dueDate,
      board: { type: 'string', description: 'Name of the board the task belongs to' },
    },
    required: [],
    run: (args, office) => searchTasks(office, args),
  }),
  officeTool({
    name: 'project_management_create_task',
    pythonMethod: 'ProjectManagementTool.create_task',
    description: 'Creates a new task.',
    parameters: {
      task_name: taskName,
      assigned_to_email: assignee,
      list_name: { type: 'string', description: "Name of the list the task belongs to. One of: 'Backlog', 'In Progress', 'In Review', 'Completed'" },
      due_date: dueDate,
      board: { type: 'string', description: "Name of the board the task belongs to. One of: 'Back end', 'Front end', 'Design'" },
    },
    required: ['task_name', 'assigned_to_email', 'list_name', 'due_date', 'board'],
    run: ({ task_name, assigned_to_email, list_name, due_date, board }, office) => {
      if (![task_name, assigned_to_email, list_name, due_date, board].every(pythonTruthy)) return 'Missing task details.';
      const address = pythonLower(assigned_to_email);
      if (!isTeamMember(office, address)) return INVALID_ASSIGNEE;
      if (!pythonContains(LISTS, list_name)) return INVALID_LIST;
      if (!pythonContains(BOARDS, board)) return INVALID_BOARD;
      const id = zfill(nextId(office.projectTasks, 'task_id'));
      office.projectTasks = office.projectTasks.appendRenumbered({
        task_id: id,
        task_name: task_name,
        assigned_to_email: address,
        list_name: list_name,
        due_date: due_date,
        board: board,
      });
      return id;
    },
  }),
  officeTool({
    name: 'project_management_delete_task',
    pythonMethod: 'ProjectManagementTool.delete_task',
    description: 'Deletes a task by ID.',
    parameters: { task_id: taskId },
    required: ['task_id'],
    run: ({ task_id }, office) => {
      if (!pythonTruthy(task_id)) return 'Task ID not provided.';
      return deleteRecord(office, TASKS, task_id);
    },
  }),
  officeTool({
    name: 'project_management_update_task',
    pythonMethod: 'ProjectManagementTool.update_task',
    description: 'Updates a task by ID.',
    parameters: {
      task_id: taskId,
      field: { type: 'string', description: "Field to update. Available fields are: 'task_name', 'assigned_to_email', 'list_name', 'due_date', 'board'" },
      new_value: { type: 'string', description: 'New value for the field' },
    },
    required: ['task_id', 'field', 'new_value'],
    run: ({ task_id, field, new_value }, office) => {
      if (!pythonTruthy(task_id) || !pythonTruthy(field) || !pythonTruthy(new_value)) return 'Task ID, field, or new value not provided.';
      const value = field === 'assigned_to_email' ? pythonLower(new_value) : (new_value);
      if (field === 'board' && !pythonContains(BOARDS, value)) return INVALID_BOARD;
      if (field === 'list_name' && !pythonContains(LISTS, value)) return INVALID_LIST;
      if (field === 'assigned_to_email' && !isTeamMember(office, value as string)) return INVALID_ASSIGNEE;
      return updateRecord(office, TASKS, task_id, field, value, 'Field not valid.');
    },
  }),
];
