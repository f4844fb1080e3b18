import { PageQuery } from '#libs/http';

/** `cursorMinLength`: an empty cursor is reported as too short, as before the shared base. */
export class ListQueryDto extends PageQuery({ cursorMinLength: true }) {}
