/**
 * The 27 office tools in upstream's order (the order of the `tools` list in a dataset row): the company
 * directory, then email, calendar, analytics, project management and CRM.
 */
import { pythonEquals, pythonLower } from 'ngym/python-compat';
import { analyticsTools } from './analytics.ts';
import { calendarTools } from './calendar.ts';
import { customerRelationshipManagerTools } from './customer-relationship-manager.ts';
import { emailTools } from './email.ts';
import { projectManagementTools } from './project-management.ts';
import { pythonSearch } from './python-regex.ts';
import { type OfficeTool, officeTool, toolDefinition } from './tool.ts';

const companyDirectoryTool = officeTool({
  name: 'company_directory_find_email_address',
  pythonMethod: 'CompanyDirectoryTool.find_email_address',
  description: 'Finds all email addresses containing the given name (case-insensitive search).',
  parameters: { name: { type: 'string', description: 'Name or partial name to search for in email addresses', default: '' } },
  required: [],
  run: ({ name }, office) => {
    if (pythonEquals(name, '')) return 'Name not provided.';
    const matches = pythonSearch(pythonLower(name));
    return office.directory.filter((address) => typeof address === 'string' && matches(address));
  },
});

const OFFICE_TOOLS: readonly OfficeTool[] = [
  companyDirectoryTool,
  ...emailTools,
  ...calendarTools,
  ...analyticsTools,
  ...projectManagementTools,
  ...customerRelationshipManagerTools,
];

export const OFFICE_TOOLS_BY_NAME: ReadonlyMap<string, OfficeTool> = new Map(OFFICE_TOOLS.map((tool) => [tool.name, tool]));

export const OFFICE_TOOL_DEFINITIONS = OFFICE_TOOLS.map(toolDefinition);
