import { describeEventCatalog } from '../suites/event-catalog';
import { embedded } from '../suites/target';

describeEventCatalog(embedded);
